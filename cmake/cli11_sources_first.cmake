# poslsh_cli11_sources_first(LIST_VAR): reorders the source list LIST_VAR so
# that the files including CLI11, directly or through a header of the project,
# come first (each group in its original order). With unity builds the list is
# cut into batches in order, so CLI11 is compiled in as few translation units
# as its users fill. Only the build time depends on it: a file it misjudges
# still compiles, in another batch.

# The regular expression of an #include line that brings in CLI11: <CLI/...>
# or a project header that does (found by repeating until no header is added).
function(_poslsh_cli11_include_regex out_var)
  file(GLOB_RECURSE headers ${PROJECT_SOURCE_DIR}/src/*.h ${PROJECT_SOURCE_DIR}/include/*.h
       ${PROJECT_SOURCE_DIR}/experiments/*.h ${PROJECT_SOURCE_DIR}/apps/*.h
       ${PROJECT_SOURCE_DIR}/tests/*.h ${PROJECT_SOURCE_DIR}/fuzz/*.h)
  set(regex "^#include <CLI/")
  set(users "")
  set(added TRUE)
  while(added)
    set(added FALSE)
    foreach(header IN LISTS headers)
      if(header IN_LIST users)
        continue()
      endif()
      file(STRINGS ${header} hit REGEX "${regex}")
      if(hit)
        list(APPEND users ${header})
        get_filename_component(name ${header} NAME)
        string(REPLACE "." "\\." name "${name}")
        string(APPEND regex "|^#include \"(.*/)?${name}\"")
        set(added TRUE)
      endif()
    endforeach()
  endwhile()
  set(${out_var} "${regex}" PARENT_SCOPE)
endfunction()

function(poslsh_cli11_sources_first list_var)
  get_property(regex GLOBAL PROPERTY POSLSH_CLI11_INCLUDE_REGEX)
  if(NOT regex)
    _poslsh_cli11_include_regex(regex)
    set_property(GLOBAL PROPERTY POSLSH_CLI11_INCLUDE_REGEX "${regex}")
  endif()
  set(first "")
  set(rest "")
  foreach(source IN LISTS ${list_var})
    file(STRINGS ${source} hit REGEX "${regex}")
    if(hit)
      list(APPEND first ${source})
    else()
      list(APPEND rest ${source})
    endif()
  endforeach()
  set(${list_var} ${first} ${rest} PARENT_SCOPE)
endfunction()
