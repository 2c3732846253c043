# cfa_space_robot.gp — docs/cfa_space_robot.png from the data of examples/sim/space_robot_sim
# (like figs. 8-10 of Liu, Hu & Zhang, "Constraint force algorithm for tree-like multibody system
# dynamics", Chinese Journal of Theoretical and Applied Mechanics 48(1), 2016: the hub's attitude,
# arm 1's joint angles, the constraint wrench at L11's inboard joint). Run from the source
# directory (scripts/cfa_space_robot.sh does it all):
#   gnuplot -e "data='space_robot.dat'" docs/cfa_space_robot.gp
if (!exists("data")) data = "space_robot.dat"
set terminal pngcairo size 900,1100 font ",10"
set output "docs/cfa_space_robot.png"
set multiplot layout 4,1 title "Free-floating space robot (Liu et al. 2016, §4), 10 s, Dormand-Prince 5(4) tol 1e-10, generated cfa"
set grid
set lmargin 12
set rmargin 22
set key outside right
set xlabel "t [s]"
set ylabel "hub attitude [deg]"
plot data u 1:2 w l t "roll", "" u 1:3 w l t "pitch", "" u 1:4 w l t "yaw"
set ylabel "arm 1 joint angle [deg]"
plot data u 1:5 w l t "q11", "" u 1:6 w l t "q12", "" u 1:7 w l t "q13"
set ylabel "L11 joint moment [N m]"
plot data u 1:8 w l t "n_x", "" u 1:9 w l t "n_y", "" u 1:10 w l t "n_z (= tau11)"
set ylabel "L11 joint force [N]"
plot data u 1:11 w l t "f_x", "" u 1:12 w l t "f_y", "" u 1:13 w l t "f_z"
unset multiplot
