# The pages' commands run as written (tests/docs_run.sh, docs/testing.md "The pages' commands"):
# every ```sh block of the page run in order in a scratch checkout, every file it shows written
# and built, nothing left unrun but output (```text, ```console).
#   docs_getting_started  docs/getting-started.md: a CMake project of its own from the UR5's
#                         URDF (add_subdirectory of the sources, then an installed mbdc), its
#                         harness, the controller's error bound, the plot; its files equal to
#                         examples/getting_started/
#   docs_readme           README.md: its commands; the quick set skips `bash scripts/demo.sh`,
#                         the full set runs it (--full, in a copy of the sources)
mbdc_add_script_test(NAME docs_getting_started SCRIPT docs_run.sh TIMEOUT 600
  ARGS $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/docs/getting-started.md)
set(readme_mode "")
if(MBDC_TEST_SET STREQUAL "full")
  set(readme_mode --full)
endif()
mbdc_add_script_test(NAME docs_readme SCRIPT docs_run.sh TIMEOUT 900
  ARGS $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/README.md ${readme_mode})
#   docs_batch            docs/batch.md: --batch on Solo12, the page's program against the scalar
#                         calls (bit for bit without contraction), then built with -O3 and OpenMP
mbdc_add_script_test(NAME docs_batch SCRIPT docs_run.sh TIMEOUT 600
  ARGS $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/docs/batch.md)
