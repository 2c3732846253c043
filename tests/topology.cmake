# Topology graph, check summary and Graphviz output (generator/topology.c, summary.c, graph.c).
mbdc_add_test(NAME test_topology SOURCES test_topology.c mbg_testmodel.c LIBS mbdc_core)
mbdc_add_test(NAME test_graph SOURCES test_graph.c LIBS mbdc_core)
mbdc_add_test(NAME test_topology_random SOURCES test_topology_random.c mbg_testmodel.c mb_randtree.c LIBS mbdc_core)
mbdc_add_test(NAME test_cfa_order SOURCES test_cfa_order.c mb_randtree.c LIBS mbdc_core)
