# simulate_work.gp — docs/simulate_work.png: the final error against the number of generated
# fd_loops calls, mb_simulate (Dormand & Prince 5(4), one point per tolerance) and fixed-step RK4
# (one point per step), for the five-bar (5 s) and the quarter car (2 s and its first 0.5 s).
# bench/simulate.sh runs bench/simulate_driver.c and calls it from the source directory:
#   gnuplot -e "dir='DATA_DIR'" docs/simulate_work.gp
# DATA_DIR holds MODEL_rk4.dat and MODEL_dp5.dat (columns: calls, error, dt or tolerance).
if (!exists("dir")) dir = "."
set terminal pngcairo size 1200,450 font ",10" noenhanced
set output "docs/simulate_work.png"
set logscale xy
set format x "1e%T"
set format y "1e%T"
set grid
set offsets 0, 0, graph 0.03, graph 0.15 # room for the key below the curves
set key bottom left Left reverse
set xlabel "fd_loops calls"
set ylabel "final error (max |q - q_ref|, |v - v_ref|)"
set multiplot layout 1,3 title "Work against accuracy: mb_simulate (DP5(4), error control) and fixed-step RK4, both with the projection after every step"
models = "five_bar quarter_car quarter_car_0.5s"
titles = "'five-bar, 5 s' 'quarter car, 2 s' 'quarter car, first 0.5 s'"
do for [i = 1:3] {
  m = word(models, i)
  set title word(titles, i)
  plot dir . "/" . m . "_rk4.dat" u 1:2 w lp pt 7 ps 0.6 t "RK4, dt = T/25 ... T/25600", \
       dir . "/" . m . "_dp5.dat" u 1:2 w lp pt 5 ps 0.6 t "mb_simulate, tol = 1e-4 ... 1e-12", \
       dir . "/" . m . "_dp5.dat" u 1:2:(sprintf("%.0e", $3)) w labels offset 3.2, 0.3 font ",7" notitle
}
unset multiplot
