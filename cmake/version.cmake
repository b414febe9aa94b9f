# Writes ${OUT}: the git commit of the source tree, compiled into the binary for
# provenance (.meta.json, report.md, --version). Runs at every build but only
# touches the file when the commit changes, so a commit costs one tiny rebuild.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC}
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit)
  set(commit "unknown")
elseif(dirty)
  set(commit "${commit}-dirty")
endif()
set(text "#include \"runner/version.h\"\nconst char* poslsh::git_commit() { return \"${commit}\"; }\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
