# Run-time inertial parameters (docs/parameters.md; the harness of every matrix row param_*
# compares the functions called with a pi of its own against the runtime on that model): a
# payload changed between calls against the model regenerated with it as constants.
mbdc_add_script_test(NAME payload SCRIPT payload_test.sh
                     ARGS $<TARGET_FILE:mbdc> ${PROJECT_SOURCE_DIR})
