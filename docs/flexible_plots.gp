# flexible_plots.gp — docs/flexible_arm.png from the CSV of examples/sim/flexible_arm_sim for the
# flexible arm and for the rigid arm (--rigid) (docs/flexible.md, "Simulation").
# Run from the source directory; scripts/plots_flexible.sh builds, runs and calls it:
#   gnuplot -e "fl='flexible.csv'; rg='rigid.csv'" docs/flexible_plots.gp
# Columns: 1 t, 2 shoulder, 3 elbow (rad), 4 tip deflection (m), 5-7 eta1..eta3 (m),
# 8 tau_shoulder, 9 tau_elbow (N m), 10 kinetic, 11 elastic, 12 work, 13 balance (J).
if (!exists("fl")) fl = "flexible.csv"
if (!exists("rg")) rg = "rigid.csv"
set datafile separator ","
set terminal pngcairo size 900,1100 font ",10" noenhanced
set output "docs/flexible_arm.png"
deg = 180 / pi
set grid
set lmargin 12
set rmargin 24
set key outside right
set xlabel "t [s]"
set multiplot layout 4,1 title "Flexible arm (3 modes) and rigid arm (modes 0), the same open-loop torques, 5 s from rest (generated aba, mb_simulate tol 1e-9)"
set arrow 1 from 1, graph 0 to 1, graph 1 nohead dt 2 lc rgb "gray40"

set ylabel "torque [N m]"
plot rg u 1:8 skip 1 w l lw 1.5 t "shoulder", "" u 1:9 skip 1 w l lw 1.5 t "elbow"

set ylabel "joint angle [deg]"
set label 1 "torques off" at 1, graph 0.5 offset 0.5, 0 font ",9"
plot rg u 1:($2*deg) skip 1 w l lw 1.5 lc 1 t "shoulder, rigid", \
     fl u 1:($2*deg) skip 1 w l lw 1.5 lc 2 t "shoulder, flexible", \
     rg u 1:($3*deg) skip 1 w l dt 2 lc 1 t "elbow, rigid", \
     fl u 1:($3*deg) skip 1 w l dt 2 lc 2 t "elbow, flexible"
unset label 1

set ylabel "tip deflection [mm]"
plot fl u 1:($4*1e3) skip 1 w l lc 2 t "flexible forearm", \
     "" u 1:($5*1e3) skip 1 w l lc rgb "gray60" t "mode 1 (eta1)"

unset arrow 1
set ylabel "tip deflection [mm]"
set xrange [1:1.3]
plot fl u 1:($4*1e3) skip 1 w lp pt 7 ps 0.3 lc 2 t "tip (zoom)", \
     "" u 1:($5*1e3) skip 1 w l lc rgb "gray60" t "eta1", \
     "" u 1:(($6+$7)*1e3) skip 1 w l lc rgb "gray30" t "eta2 + eta3"
unset multiplot
