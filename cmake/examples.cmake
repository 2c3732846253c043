# examples.cmake — the options of the bundled example robots (examples/urdf/floating_base.txt and
# contacts.txt), for the `regenerate` target, the tests (tests/matrix.txt's @example) and the bench.
include_guard(GLOBAL)

# out_var = the mbdc_add_model arguments of examples/urdf/<stem>.urdf: FLOATING_BASE when
# floating_base.txt lists it, CONTACTS <frames> when contacts.txt does.
function(mbdc_example_options stem out_var)
  set(dir ${PROJECT_SOURCE_DIR}/examples/urdf)
  file(STRINGS ${dir}/floating_base.txt floating REGEX "^[a-z]")
  file(STRINGS ${dir}/contacts.txt contacts REGEX "^[a-z]")
  set(opts "")
  if(stem IN_LIST floating)
    list(APPEND opts FLOATING_BASE)
  endif()
  foreach(line IN LISTS contacts)
    if(line MATCHES "^([^ \t]+)[ \t]+([^ \t]+)" AND CMAKE_MATCH_1 STREQUAL stem)
      list(APPEND opts CONTACTS ${CMAKE_MATCH_2})
    endif()
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${dir}/floating_base.txt
               ${dir}/contacts.txt)
  set(${out_var} "${opts}" PARENT_SCOPE)
endfunction()

# out_var = the same as `mbdc generate` options (--floating-base, --contacts <frames>).
function(mbdc_example_flags stem out_var)
  mbdc_example_options(${stem} opts)
  list(TRANSFORM opts REPLACE "^FLOATING_BASE$" "--floating-base")
  list(TRANSFORM opts REPLACE "^CONTACTS$" "--contacts")
  set(${out_var} "${opts}" PARENT_SCOPE)
endfunction()
