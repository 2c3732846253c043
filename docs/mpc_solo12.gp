# mpc_solo12.gp — docs/mpc_solo12.png from the data of examples/mpc/solo12_lqr (docs/mpc.md).
# Run from the source directory (the program is built as the test controller_solo12_lqr):
#   build/tests/solo12_lqr solo_lqr.dat && gnuplot -e "dat='solo_lqr.dat'" docs/mpc_solo12.gp
# Columns: 1 t; closed loop 2 y - y*, 3 |p - p*|, 4 orientation error, 5 max |tau - tau*|,
# 6 min f_z, 7 max |f_t|/f_z; open loop (tau = tau*) the same in 8-13.
if (!exists("dat")) dat = "solo_lqr.dat"
set terminal pngcairo size 900,900 font ",10" noenhanced
set output "docs/mpc_solo12.png"
set grid
set key outside right
set lmargin 12
set rmargin 26
set xrange [0:2]
set multiplot layout 3,1 title "Solo12 on four feet pushed sideways at 0.3 m/s: LQR on the contact-consistent linearization (contact_fd_derivatives), 1 kHz"
set xlabel "t [s]"
set ylabel "base y - y* [mm]"
set yrange [-5:60]
plot dat u 1:(1000*$2) w l lw 2 t "LQR", dat u 1:(1000*$8) w l lw 2 dt 2 t "tau = tau* (falls)"
set yrange [*:*]
set ylabel "error"
set yrange [1e-9:1]
set logscale y
set format y "%.0e"
plot dat u 1:3 w l lw 2 t "|p - p*| [m], LQR", dat u 1:($4 > 0 ? $4 : 1e-16) w l lw 2 t "angle [rad], LQR", \
     dat u 1:9 w l lw 2 dt 2 t "|p - p*| [m], tau*", dat u 1:10 w l lw 2 dt 2 t "angle [rad], tau*"
unset logscale y
set format y "%g"
set yrange [*:*]
set ylabel "N m, N"
plot dat u 1:5 w l lw 2 t "max |tau - tau*| [N m]", dat u 1:6 w l lw 2 t "min f_z [N]", \
     dat u 1:7 w l lw 2 t "max |f_t|/f_z", 0 w l lc rgb "gray50" notitle
unset multiplot
