package io.github.retryafter.sample;

import java.util.Locale;

/**
 * Renders the arrivals of a scenario as an inline SVG bar chart: one stacked bar per {@value ScenarioResult#BIN_MILLIS}
 * ms bin, first attempts at the bottom, retries on top. Plain SVG, no scripts, no external resources. Stateless.
 */
final class ArrivalChart {

	static final String FIRST_COLOUR = "#4e79a7";

	static final String RETRY_COLOUR = "#e15759";

	private static final int WIDTH = 900;

	private static final int HEIGHT = 300;

	private static final int LEFT = 50;

	private static final int RIGHT = 10;

	private static final int TOP = 30;

	private static final int BOTTOM = 40;

	private ArrivalChart() {
	}

	static String render(ScenarioResult result) {
		int[][] bins = result.bins();
		int count = bins[0].length;
		int max = 1;
		for (int i = 0; i < count; i++) {
			max = Math.max(max, bins[0][i] + bins[1][i]);
		}
		double plotWidth = WIDTH - LEFT - RIGHT;
		double plotHeight = HEIGHT - TOP - BOTTOM;
		double barWidth = plotWidth / count;
		double baseline = TOP + plotHeight;
		StringBuilder svg = new StringBuilder();
		svg.append(String.format(Locale.ROOT,
				"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"arrivals\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
						+ " role=\"img\" aria-label=\"requests arriving at the simulated provider per %d ms\">%n",
				WIDTH, HEIGHT, WIDTH, HEIGHT, ScenarioResult.BIN_MILLIS));
		svg.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n",
				WIDTH, HEIGHT));
		for (int tick = 0; tick <= 4; tick++) {
			int value = (int) Math.round(max * tick / 4.0);
			double y = baseline - plotHeight * value / max;
			svg.append(String.format(Locale.ROOT,
					"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
							+ "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"#333\">%d</text>%n",
					LEFT, y, WIDTH - RIGHT, y, LEFT - 6, y + 4, value));
		}
		long span = (long) count * ScenarioResult.BIN_MILLIS;
		long step = (span > 4000) ? 1000 : 500;
		for (long at = 0; at <= span; at += step) {
			double x = LEFT + plotWidth * at / span;
			svg.append(String.format(Locale.ROOT,
					"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999999\"/>"
							+ "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" fill=\"#333\">%.1f s</text>%n",
					x, baseline, x, baseline + 5, x, baseline + 18, at / 1000.0));
		}
		for (int i = 0; i < count; i++) {
			double x = LEFT + i * barWidth;
			double firstHeight = plotHeight * bins[0][i] / max;
			double retryHeight = plotHeight * bins[1][i] / max;
			if (bins[0][i] > 0) {
				bar(svg, "first", FIRST_COLOUR, x, baseline - firstHeight, barWidth, firstHeight, i, bins[0][i]);
			}
			if (bins[1][i] > 0) {
				bar(svg, "retry", RETRY_COLOUR, x, baseline - firstHeight - retryHeight, barWidth, retryHeight, i,
						bins[1][i]);
			}
		}
		svg.append(String.format(Locale.ROOT,
				"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333333\"/>%n", LEFT, baseline, WIDTH - RIGHT,
				baseline));
		svg.append(String.format(Locale.ROOT,
				"<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" fill=\"#333\">time since the burst "
						+ "started (%d ms bins)</text>%n",
				LEFT + (int) plotWidth / 2, HEIGHT - 6, ScenarioResult.BIN_MILLIS));
		legend(svg, LEFT, "first attempts", FIRST_COLOUR);
		legend(svg, LEFT + 140, "retries", RETRY_COLOUR);
		svg.append("</svg>\n");
		return svg.toString();
	}

	private static void bar(StringBuilder svg, String kind, String colour, double x, double y, double width,
			double height, int bin, int value) {
		svg.append(String.format(Locale.ROOT,
				"<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
						+ "<title>%d-%d ms: %d %s</title></rect>%n",
				kind, x, y, Math.max(width, 1.5), Math.max(height, 1), colour, bin * ScenarioResult.BIN_MILLIS,
				(bin + 1) * ScenarioResult.BIN_MILLIS, value, kind.equals("first") ? "first attempts" : "retries"));
	}

	private static void legend(StringBuilder svg, int x, String label, String colour) {
		svg.append(String.format(Locale.ROOT,
				"<rect x=\"%d\" y=\"8\" width=\"12\" height=\"12\" fill=\"%s\"/>"
						+ "<text x=\"%d\" y=\"18\" font-size=\"12\" fill=\"#333\">%s</text>%n",
				x, colour, x + 16, label));
	}

}
