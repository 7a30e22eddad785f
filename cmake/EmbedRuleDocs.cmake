# Writes OUTPUT: a C++ table { "<rule>", R"(<text of docs/rules/<rule>.md>)" }
# for every file in DOCS (a ;-separated list), so --explain prints the docs.
# Run as: cmake -DOUTPUT=... -DDOCS=... -P EmbedRuleDocs.cmake
set(Text "// Generated from docs/rules/*.md by cmake/EmbedRuleDocs.cmake.\n")
foreach(Doc IN LISTS DOCS)
  get_filename_component(Rule "${Doc}" NAME_WE)
  file(READ "${Doc}" Body)
  string(FIND "${Body}" ")pfdoc\"" Clash)
  if(NOT Clash EQUAL -1)
    message(FATAL_ERROR "${Doc} contains the raw-string delimiter )pfdoc\"")
  endif()
  string(APPEND Text "{\"${Rule}\", R\"pfdoc(${Body})pfdoc\"},\n")
endforeach()
# Rewrite only on change: the tool is relinked only when a doc changes.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" Old)
  if(Old STREQUAL Text)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${Text}")
