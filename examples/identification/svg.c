/* svg.c — the validation plot (ident.h): measured and predicted torques against time, one panel
 * per joint, two panels a row; an SVG any browser shows, no plotting program needed. */
#include <math.h>
#include <stdio.h>

#include "ident.h"

#define PW 460.0 /* a panel's plotting area, px */
#define PH 170.0
#define ML 60.0 /* margins around it: left (ticks), top (title), right, bottom (time axis) */
#define MT 34.0
#define MR 16.0
#define MB 34.0

static void series(FILE *f, int ns, int nv, int j, const double *t, const double *y, double x0,
                   double y0, double lo, double hi, const char *style) {
  double span = t[ns - 1] - t[0];
  fprintf(f, "<polyline %s points=\"", style);
  for (int k = 0; k < ns; k++)
    fprintf(f, "%.1f,%.1f%s", x0 + PW * (t[k] - t[0]) / span,
            y0 + PH * (hi - y[k * nv + j]) / (hi - lo), k + 1 < ns ? " " : "");
  fprintf(f, "\"/>\n");
}

static void panel(FILE *f, int ns, int nv, int j, const double *t, const double *meas,
                  const double *pred) {
  double x0 = ML + (j % 2) * (ML + PW + MR), y0 = MT + (j / 2) * (MT + PH + MB);
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (int k = 0; k < ns; k++) {
    lo = fmin(lo, fmin(meas[k * nv + j], pred[k * nv + j]));
    hi = fmax(hi, fmax(meas[k * nv + j], pred[k * nv + j]));
  }
  double pad = 0.05 * (hi - lo) + 1e-9;
  lo -= pad, hi += pad;
  fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
          "stroke=\"#444\"/>\n", x0, y0, PW, PH);
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">joint %d torque, N m</text>\n",
          x0, y0 - 8.0, j + 1);
  for (int i = 0; i <= 4; i++) { /* five ticks on the torque axis */
    double yv = lo + (hi - lo) * i / 4.0, yp = y0 + PH * (1.0 - i / 4.0);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x0,
            yp, x0 + PW, yp);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n", x0 - 4.0,
            yp + 4.0, yv);
  }
  for (int i = 0; i <= 5; i++) { /* and six on time */
    double xp = x0 + PW * i / 5.0;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f s</text>\n", xp,
            y0 + PH + 16.0, t[0] + (t[ns - 1] - t[0]) * i / 5.0);
  }
  series(f, ns, nv, j, t, meas, x0, y0, lo, hi,
         "fill=\"none\" stroke=\"#999\" stroke-width=\"0.8\"");
  series(f, ns, nv, j, t, pred, x0, y0, lo, hi,
         "fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"1.4\"");
}

int svg_plot(const char *path, const char *title, int ns, int nv, const double *t,
             const double *meas, const double *pred) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int rows = (nv + 1) / 2;
  double w = 2.0 * (ML + PW + MR), h = 30.0 + rows * (MT + PH + MB);
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
          "font-family=\"sans-serif\" font-size=\"12\">\n", w, h);
  fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\">%s — "
          "<tspan fill=\"#777\">measured</tspan>, "
          "<tspan fill=\"#1f5fbf\">predicted</tspan></text>\n", ML, h - 10.0, title);
  for (int j = 0; j < nv; j++) panel(f, ns, nv, j, t, meas, pred);
  fprintf(f, "</svg>\n");
  return fclose(f) == 0 ? 0 : -1;
}
