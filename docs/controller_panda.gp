# controller_panda.gp — docs/controller_panda.png from the CSV of examples/controller/panda_osc
# (operational-space control of the Panda's TCP: a horizontal circle, r = 0.1 m, period 2 s).
# Run from the source directory:
#   ./panda_osc --check /tmp/panda.csv
#   gnuplot -e "csv='/tmp/panda.csv'" docs/controller_panda.gp
# Columns: 1 t, 2-4 TCP x y z, 5-7 desired x y z, 8 |position error|, 9 |orientation error|,
# 10-16 the arm's torques tau1..tau7.
if (!exists("csv")) csv = "panda.csv"
set datafile separator ","
set terminal pngcairo size 1000,900 font ",10" noenhanced
set output "docs/controller_panda.png"
set grid
# The circle's centre: the TCP's initial position (the first data row).
stats csv u 2 skip 1 every ::0::0 nooutput
cx = STATS_min
stats csv u 3 skip 1 every ::0::0 nooutput
cy = STATS_min
r = 0.1
mm = 1000

set multiplot title "Panda TCP, operational-space control (Khatib 1987) with the generated functions: 4 s at 1 kHz, plant panda_aba + RK4" font ",11"

# Top left: the path in the horizontal plane against the circle (mm, about the centre).
set origin 0, 0.44
set size 0.5, 0.52
set size ratio -1
set xlabel "x - x0 [mm]"
set ylabel "y - y0 [mm]"
set xrange [-120:120]
set yrange [-120:120]
set key inside bottom right box opaque
set parametric
set trange [0:2*pi]
plot r*mm*cos(t), r*mm*sin(t) w l lw 4 lc rgb "gray80" t "circle, r = 0.1 m", \
     csv u (($2-cx)*mm):(($3-cy)*mm) skip 1 w l lw 1.5 lc rgb "#1f77b4" t "TCP (radius eased in over 0.5 s)"
unset parametric
set size noratio
unset xrange
unset yrange

# Top right: the arm's torques.
set origin 0.5, 0.44
set size 0.5, 0.52
set xlabel "t [s]"
set ylabel "torque [N m]"
set key outside right vertical nobox
plot for [k=1:7] csv u 1:(column(9+k)) skip 1 w l t sprintf("tau%d", k)

# Bottom: the errors, log scale; the --check window starts at 0.5 s.
set origin 0, 0
set size 1, 0.44
set logscale y
set format y "1e%T"
set yrange [1e-7:1e-3]
set ylabel "error [m, rad]"
set key inside top right box opaque
set arrow 1 from 0.5, graph 0 to 0.5, graph 1 nohead dt 2 lc rgb "gray40"
set label 1 "--check window" at 0.52, graph 0.92 font ",9"
plot csv u 1:8 skip 1 w l lw 1.5 t "|p_d - p| [m]", \
     csv u 1:9 skip 1 w l lw 1.5 t "|log(R_d R^T)| [rad]"
unset multiplot
