# SPDX-License-Identifier: GPL-2.0-only
# Writes OUT, a C++ header holding PAGE (the results page's HTML, as kPage) and SCRIPTS (its
# JavaScript files, "|"-separated, joined in order inside one strict-mode function scope, as kScript) as raw
# string literals, built into the runner so that every index.html it writes is self-contained.
# Run by a custom command (cmake -P), so that editing an asset rebuilds the header.
set(delim "aifabric_asset")
string(REPLACE "|" ";" SCRIPTS "${SCRIPTS}")  # "|"-separated: one -D argument
file(READ "${PAGE}" page)
set(script "(function () {\n'use strict';\n")
foreach(file ${SCRIPTS})
  file(READ "${file}" content)
  # The script goes inside <script>...</script>: it must not end that element early.
  string(TOLOWER "${content}" lower)
  string(FIND "${lower}" "</script" early)
  if(NOT early EQUAL -1)
    message(FATAL_ERROR "${file} contains </script, which would end the page's script element")
  endif()
  string(APPEND script "${content}\n")
endforeach()
string(APPEND script "})();\n")
set(text "// Generated from runner/output/report by runner/output/report/embed.cmake; do not edit.\n")
string(APPEND text "#pragma once\nnamespace aifabric::report_assets\n{\n")
foreach(name kPage kScript)
  if(name STREQUAL "kPage")
    set(content "${page}")
  else()
    set(content "${script}")
  endif()
  string(FIND "${content}" ")${delim}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "runner/output/report contains the raw-string delimiter )${delim}\"")
  endif()
  string(APPEND text "inline constexpr const char ${name}[] = R\"${delim}(${content})${delim}\";\n")
endforeach()
string(APPEND text "} // namespace aifabric::report_assets\n")
file(WRITE "${OUT}.tmp" "${text}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
