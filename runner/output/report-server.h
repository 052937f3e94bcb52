// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_REPORT_SERVER_H
#define AI_FABRIC_REPORT_SERVER_H

#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace aifabric
{

/**
 * The file a request path names under `root`, or "" when it names none: percent-decoded, the
 * query and fragment dropped, "/" the page (index.html); no "..", no NUL, no hidden names, and
 * the resolved file (symbolic links followed) must be a regular file inside `root`.
 */
std::filesystem::path ResolveRequest(const std::filesystem::path& root, const std::string& target);

/// The Content-Type of a file by its extension (text/html, image/png, image/svg+xml, ...).
std::string ContentType(const std::filesystem::path& p);

/**
 * Serve the files under `root` over HTTP on 127.0.0.1 only (never another address), GET and
 * HEAD, one request per connection, until SIGINT/SIGTERM/SIGHUP (InterruptSignal) or
 * `stop()` returns true. `port` 0 takes a free port. `ready(port)` is called once listening.
 * Connections are answered concurrently (a thread each, at most 32; more get 503), reads wait
 * at most 5 s and writes 10 s, files are streamed in 64 KiB chunks, and a request whose Host
 * is not 127.0.0.1 or localhost (with this port or none) gets 421 (DNS rebinding).
 * \return 0 when stopped; throws ScenarioError when the port is in use or privileged,
 * std::runtime_error when it cannot be bound otherwise
 */
int ServeDirectory(const std::filesystem::path& root,
                   uint16_t port,
                   const std::function<void(uint16_t)>& ready,
                   const std::function<bool()>& stop = {});

} // namespace aifabric

#endif
