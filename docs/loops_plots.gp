# loops_plots.gp — docs/loops_five_bar.png, docs/loops_quarter_car.png and docs/loops_drift.png
# from the CSV of examples/sim/five_bar_sim and quarter_car_sim (docs/loops_simulation.md).
# Run from the source directory; scripts/plots_loops.sh builds, runs and calls it:
#   gnuplot -e "fb='five_bar.csv'; fbu='five_bar_noproj.csv'; qc='quarter_car.csv'; \
#               qcu='quarter_car_noproj.csv'; tv=0.8103" docs/loops_plots.gp
# (fbu, qcu: the runs with --no-project; tv: the time bar 2 is first vertical, from the summary.)
if (!exists("fb")) fb = "five_bar.csv"
if (!exists("fbu")) fbu = "five_bar_noproj.csv"
if (!exists("qc")) qc = "quarter_car.csv"
if (!exists("qcu")) qcu = "quarter_car_noproj.csv"
if (!exists("tv")) tv = 0.81
set datafile separator ","
set terminal pngcairo size 900,900 font ",10" noenhanced
deg = 180 / pi
set grid
set lmargin 12
set rmargin 26
set key outside right
set xlabel "t [s]"
# E(0) of each run: the energy column of the first data row.
stats fb u 8 skip 1 every ::0::0 nooutput
E0fb = STATS_min
stats qc u 16 skip 1 every ::0::0 nooutput
E0qc = STATS_min

# The five-bar: q1..q3 (deg), q4 (m), the energy error; bar 2 first vertical marked.
set output "docs/loops_five_bar.png"
set multiplot layout 3,1 title "Five-bar (Critchley & Anderson 2003, sec. 6) from rest, 5 s, mb_simulate (DP5(4)) tol 1e-10, fd_loops + projection"
set arrow 1 from tv, graph 0 to tv, graph 1 nohead dt 2 lc rgb "gray40"
set label 1 sprintf("bar 2 vertical, t = %.3f s", tv) at tv, graph 0.92 offset 0.5, 0 font ",9"
set ylabel "joint angle [deg]"
plot fb u 1:($2*deg) skip 1 w l t "q1", "" u 1:($3*deg) skip 1 w l t "q2", \
     "" u 1:($4*deg) skip 1 w l t "q3", "" u 1:(($2+$3)*deg) skip 1 w l dt 3 t "q1 + q2 (bar 2)"
unset label 1
set ylabel "q4 [m]"
plot fb u 1:5 skip 1 w l t "q4 (telescope)"
set ylabel "|E(t) - E(0)| [J]"
set logscale y
set format y "1e%T"
plot fb u 1:(abs($8-E0fb)) skip 1 w l t "projected", fbu u 1:(abs($8-E0fb)) skip 1 w l t "not projected"
unset logscale y
set format y "% h"
unset arrow 1
unset multiplot

# The quarter car: the wheel centre, the arm and knuckle angles, the energy.
set output "docs/loops_quarter_car.png"
set multiplot layout 3,1 title "Quarter car (after Kang & Yoon), released at the design position, 2 s, mb_simulate DP5(4) tol 1e-10"
set ylabel "wheel centre z - 0.3 m [mm]"
plot qc u 1:(($18-0.3)*1000) skip 1 w l t "wheel centre"
set ylabel "angle about x [deg]"
plot qc u 1:19 skip 1 w l t "lower arm", "" u 1:20 skip 1 w l t "upper arm", \
     "" u 1:21 skip 1 w l t "knuckle (camber)"
set ylabel "energy [J]"
plot qc u 1:($16-E0qc) skip 1 w l t "E(t) - E(0)", "" u 1:(-$17) skip 1 w l dt 2 t "-D(t), damper", \
     "" u 1:(($16+$17-E0qc)*1e9) skip 1 w l t "(E+D-E(0)) x 1e9"
unset multiplot

# The constraint drift, with and without the projection after every step.
set output "docs/loops_drift.png"
set multiplot layout 2,1 title "Constraint drift of the mb_simulate runs (DP5(4), tol 1e-10), with and without projection"
set logscale y
set format y "1e%T"
set ylabel "max |phi_r| [m, rad]"
plot fbu u 1:6 skip 1 w l lc 1 t "five-bar, not projected", fb u 1:6 skip 1 w l lc 1 dt 3 t "five-bar, projected", \
     qcu u 1:14 skip 1 w l lc 2 t "quarter car, not projected", qc u 1:14 skip 1 w l lc 2 dt 3 t "quarter car, projected"
set ylabel "max |(K v)_r| [m/s, rad/s]"
plot fbu u 1:7 skip 1 w l lc 1 t "five-bar, not projected", fb u 1:7 skip 1 w l lc 1 dt 3 t "five-bar, projected", \
     qcu u 1:15 skip 1 w l lc 2 t "quarter car, not projected", qc u 1:15 skip 1 w l lc 2 dt 3 t "quarter car, projected"
unset multiplot
