# controller_solo12.gp — docs/controller_solo12.png from the CSV of examples/controller/
# solo12_balance (docs/controllers.md). Run from the source directory:
#   build/tests/solo12_balance solo.csv && gnuplot -e "csv='solo.csv'" docs/controller_solo12.gp
if (!exists("csv")) csv = "solo.csv"
set datafile separator ","
set terminal pngcairo size 900,900 font ",10" noenhanced
set output "docs/controller_solo12.png"
set grid
set key outside right
set lmargin 12
set rmargin 24
set multiplot layout 3,1 title "Solo12 on four contacts, 4 s at 1 kHz: generated contact_fd (plant) and frame Jacobians (controller)"
set xlabel "t [s]"
set ylabel "base position [mm]"
plot csv u 1:(1000*$2) skip 1 w l lw 2 t "x", csv u 1:(1000*$5) skip 1 w l dt 2 lc rgb "black" t "x desired", \
     csv u 1:(1000*$3) skip 1 w l lw 2 t "y", csv u 1:(1000*$6) skip 1 w l dt 2 lc rgb "gray40" t "y desired", \
     csv u 1:(1000*($4-0.0)) skip 1 w l lw 2 t "z", csv u 1:(1000*$7) skip 1 w l dt 3 lc rgb "gray60" t "z desired"
set ylabel "normal force [N]"
foot = "FL FR HL HR"
plot for [k=9:12] csv u 1:k skip 1 w l lw 2 t word(foot, k - 8)
set ylabel "error"
set logscale y
set format y "%.0e"
plot csv u 1:8 skip 1 w l lw 2 t "|p - p_d| [m]", csv u 1:(abs($14) > 0 ? abs($14) : 1e-16) skip 1 w l lw 2 t "|E - E0 - W| [J]"
unset multiplot
