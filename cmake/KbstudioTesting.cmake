# kbstudio_add_qtest(<name> SOURCES <files...> LIBS <targets...> [LABELS <labels...>] [TIMEOUT <s>])
# One Qt Test executable registered as one CTest test named <name>, run headless.
function(kbstudio_add_qtest name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  kbstudio_warnings(${name})
  target_link_libraries(${name} PRIVATE Qt6::Test ${ARG_LIBS})
  target_compile_definitions(${name} PRIVATE
      KBSTUDIO_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}"
      KBSTUDIO_SOURCE_RESOURCES="${KBSTUDIO_SOURCE_RESOURCES}"
      KBSTUDIO_SHARED_DIR="${KBSTUDIO_SHARED_DIR}")
  add_test(NAME ${name} COMMAND ${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
                       ENVIRONMENT "QT_QPA_PLATFORM=offscreen;KBSTUDIO_PYTHON=${KBSTUDIO_PYTHON}")
  # Qt Test stops a test function after 300 s of its own: the CTest timeout is the one limit
  # (a modification, so that a test that sets its own ENVIRONMENT keeps it)
  math(EXPR _function_ms "${ARG_TIMEOUT} * 1000")
  set_property(TEST ${name} PROPERTY ENVIRONMENT_MODIFICATION "QTEST_FUNCTION_TIMEOUT=set:${_function_ms}")
endfunction()
