# The web console's files (server/ui) become a C++ source of byte arrays, compiled into
# tern_ui, so that ternd serves /ui/ with no file on disk and no internet access.
# Two steps, both at build time:
# 1. `npm ci` on a copy of server/ui/package.json and package-lock.json in the build directory
#    brings the charting library (uPlot); its node_modules never land in the source tree, and
#    each build directory (release, asan, tsan) has its own.
# 2. embed_files.cmake writes <build>/generated/ui/embedded_files.cc from the list of files;
#    it runs again when any of them, or the list, changes.

find_program(TERN_NPM npm REQUIRED)

# The charting library's files, as "<path under /ui/>=<file below node_modules>".
set(_tern_ui_vendor_files
  "vendor/uPlot.iife.min.js=uplot/dist/uPlot.iife.min.js"
  "vendor/uPlot.min.css=uplot/dist/uPlot.min.css"
  "vendor/uPlot.LICENSE.txt=uplot/LICENSE")

function(tern_ui_assets target ui_dir)
  set(npm_dir "${CMAKE_CURRENT_BINARY_DIR}/ui-npm")
  set(vendor_outputs "")
  set(entries "")
  foreach(pair ${_tern_ui_vendor_files})
    string(REPLACE "=" ";" parts "${pair}")
    list(GET parts 0 url_path)
    list(GET parts 1 module_file)
    list(APPEND vendor_outputs "${npm_dir}/node_modules/${module_file}")
    string(APPEND entries "${url_path}=${npm_dir}/node_modules/${module_file}\n")
  endforeach()
  add_custom_command(
    OUTPUT ${vendor_outputs}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${npm_dir}"
    COMMAND "${CMAKE_COMMAND}" -E copy "${ui_dir}/package.json" "${ui_dir}/package-lock.json" "${npm_dir}"
    COMMAND "${TERN_NPM}" ci --no-audit --no-fund --loglevel=error
    # npm ci keeps the files' own times: touch them, so that the rule is not run again.
    COMMAND "${CMAKE_COMMAND}" -E touch ${vendor_outputs}
    WORKING_DIRECTORY "${npm_dir}"
    DEPENDS "${ui_dir}/package.json" "${ui_dir}/package-lock.json"
    COMMENT "npm ci: the console's charting library"
    VERBATIM)

  # The console's own files: every page, script and style sheet in server/ui (not its
  # package files, nor its node_modules from a developer's own npm install).
  file(GLOB_RECURSE own_files CONFIGURE_DEPENDS RELATIVE "${ui_dir}"
       "${ui_dir}/*.html" "${ui_dir}/*.css" "${ui_dir}/*.js" "${ui_dir}/*.svg")
  list(FILTER own_files EXCLUDE REGEX "^node_modules/")
  list(SORT own_files)
  set(own_paths "")
  foreach(file ${own_files})
    string(APPEND entries "${file}=${ui_dir}/${file}\n")
    list(APPEND own_paths "${ui_dir}/${file}")
  endforeach()

  set(list_file "${CMAKE_CURRENT_BINARY_DIR}/generated/ui/embedded_files.list")
  set(out_file "${CMAKE_CURRENT_BINARY_DIR}/generated/ui/embedded_files.cc")
  # Rewritten only when the list changes, so a re-configure that changes nothing rebuilds nothing.
  file(CONFIGURE OUTPUT "${list_file}" CONTENT "${entries}" @ONLY)
  set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_files.cmake")
  add_custom_command(
    OUTPUT "${out_file}"
    COMMAND "${CMAKE_COMMAND}" -DLIST_FILE=${list_file} -DOUT_FILE=${out_file} -P "${script}"
    DEPENDS "${script}" "${list_file}" ${own_paths} ${vendor_outputs}
    COMMENT "Embedding the console's files (server/ui)"
    VERBATIM)
  target_sources(${target} PRIVATE "${out_file}")
endfunction()
