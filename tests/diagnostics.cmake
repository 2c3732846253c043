# The front end: golden diagnostics (exact text, tests/golden/) and the parsed model's fields.
mbdc_add_test(NAME test_diagnostics SOURCES test_diagnostics.c LIBS mbdc_core)
mbdc_add_test(NAME test_parse SOURCES test_parse.c LIBS mbdc_core)
