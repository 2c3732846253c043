# file: ur5_controller/plot.gp
# The UR5's motion and tracking error (docs/getting-started.md): `gnuplot ur5_controller/plot.gp`
# reads tracking.dat (columns: t, q_1 .. q_6, e_1 .. e_6, |e|, the first-order floor; s, rad)
# and writes tracking.png.
set terminal pngcairo size 900,700 font ",10" noenhanced
set output "tracking.png"
set grid
set xlabel "t [s]"
set multiplot layout 2,1 title "UR5, computed-torque control at 1 kHz (Kp = 400/s^2, Kd = 40/s)"

set lmargin at screen 0.09
set rmargin at screen 0.84
set ylabel "q [rad]"
set key at screen 0.99, graph 1 right
plot for [i = 1:6] "tracking.dat" u 1:i + 1 w l lw 2 t sprintf("joint %d", i)

wn = 20                                     # sqrt(Kp), rad/s
e0 = sqrt(6) * 0.05                         # the initial error, rad
set ylabel "|q_d - q| [rad]"
set logscale y
set format y "%.0e"
set yrange [1e-5:1]
set key inside top right opaque box
plot "tracking.dat" u 1:14 w l lw 2 t "|e|", \
     "" u 1:15 w l dt 2 lc rgb "black" t "DT/(2 Kp) |Kd qdd_d - qddd_d|", \
     [0:1] e0 * (1 + wn * x) * exp(-wn * x) w l dt 3 lw 2 lc rgb "red" \
       t "e(0) (1 + wn t) exp(-wn t)"
unset multiplot
