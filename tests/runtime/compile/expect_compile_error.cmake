# cmake -DBUILD_DIR=... -DTARGET=... -DEXPECT=<regex> -P expect_compile_error.cmake
# Builds TARGET in BUILD_DIR and passes only when the build fails with EXPECT in its output: a build that
# succeeds, or fails for another reason, fails the test.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but it must not:\n${output}")
endif()
if(NOT output MATCHES "${EXPECT}")
  message(FATAL_ERROR "${TARGET} failed to compile, but not with '${EXPECT}':\n${output}")
endif()
message(STATUS "${TARGET} is rejected as expected ('${EXPECT}')")
