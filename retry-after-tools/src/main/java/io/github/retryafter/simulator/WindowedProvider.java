package io.github.retryafter.simulator;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import io.github.retryafter.hint.HttpDate;
import io.github.retryafter.test.FakeClock;

/**
 * A running OpenAI-style provider ({@link RequestTokenWindows}): fixed request and token windows from the workload's
 * start, the OpenAI fields on every answer, a {@code 429} with {@code retry-after-ms}, {@code Retry-After} (whole
 * seconds, rounded up) and {@code x-should-retry: true} when a window cannot admit the request, and its {@code Date}
 * from its own clock (virtual time plus the model's offset). The instruction it remembers for a refusal is the
 * {@code retry-after-ms} instant: when the window that refused reopens. Not thread-safe: a run is confined to one
 * thread.
 */
final class WindowedProvider implements SimulatedProvider {

	private static final long SECOND = 1_000_000_000L;

	private static final long MILLI = 1_000_000L;

	private final RequestTokenWindows windows;

	private final long offsetNanos;

	private final long requestWindow;

	private final long tokenWindow;

	private long requestWindowIndex;

	private long requestsUsed;

	private long tokenWindowIndex;

	private long tokensUsed;

	WindowedProvider(ProviderModel model) {
		this.windows = model.windows().orElseThrow(() -> new IllegalArgumentException("the provider has no windows"));
		this.offsetNanos = model.clockOffset().toNanos();
		this.requestWindow = this.windows.requestWindow().toNanos();
		this.tokenWindow = this.windows.tokenWindow().toNanos();
	}

	@Override
	public Answer answer(long now) {
		roll(now);
		long requestReset = (this.requestWindowIndex + 1) * this.requestWindow - now;
		long tokenReset = (this.tokenWindowIndex + 1) * this.tokenWindow - now;
		boolean requestsLeft = this.requestsUsed < this.windows.requests();
		boolean tokensLeft = this.tokensUsed + this.windows.tokenCost() <= this.windows.tokens();
		String date = HttpDate.format(FakeClock.DEFAULT_ORIGIN.getEpochSecond() + Math.floorDiv(now + this.offsetNanos,
				SECOND));
		if (requestsLeft && tokensLeft) {
			this.requestsUsed++;
			this.tokensUsed += this.windows.tokenCost();
			return new Answer(200, null, date, Answer.NONE, fields(requestReset, tokenReset));
		}
		long wait = Math.max(requestsLeft ? 0 : requestReset, tokensLeft ? 0 : tokenReset);
		long waitMillis = Math.floorDiv(wait + MILLI - 1, MILLI);
		Map<String, String> fields = fields(requestReset, tokenReset);
		fields.put("retry-after-ms", Long.toString(waitMillis));
		fields.put("x-should-retry", "true");
		return new Answer(429, Long.toString(Math.floorDiv(wait + SECOND - 1, SECOND)), date, now + waitMillis * MILLI,
				fields);
	}

	/** Starts a new window of either kind once the current one has ended. */
	private void roll(long now) {
		long requestIndex = Math.floorDiv(now, this.requestWindow);
		if (requestIndex != this.requestWindowIndex) {
			this.requestWindowIndex = requestIndex;
			this.requestsUsed = 0;
		}
		long tokenIndex = Math.floorDiv(now, this.tokenWindow);
		if (tokenIndex != this.tokenWindowIndex) {
			this.tokenWindowIndex = tokenIndex;
			this.tokensUsed = 0;
		}
	}

	private Map<String, String> fields(long requestReset, long tokenReset) {
		Map<String, String> fields = new LinkedHashMap<>();
		fields.put("x-ratelimit-limit-requests", Long.toString(this.windows.requests()));
		fields.put("x-ratelimit-remaining-requests", Long.toString(this.windows.requests() - this.requestsUsed));
		fields.put("x-ratelimit-reset-requests", goDuration(requestReset));
		fields.put("x-ratelimit-limit-tokens", Long.toString(this.windows.tokens()));
		fields.put("x-ratelimit-remaining-tokens", Long.toString(this.windows.tokens() - this.tokensUsed));
		fields.put("x-ratelimit-reset-tokens", goDuration(tokenReset));
		return fields;
	}

	/**
	 * Writes a duration as Go's {@code time.Duration.String()} does, at millisecond resolution rounded up (so a client
	 * never comes back before the window reopens): {@code 0s}, {@code 640ms}, {@code 1.5s}, {@code 6m0s},
	 * {@code 1h2m3.5s}.
	 */
	static String goDuration(long nanos) {
		long millis = Math.floorDiv(nanos + MILLI - 1, MILLI);
		if (millis <= 0) {
			return "0s";
		}
		if (millis < 1000) {
			return millis + "ms";
		}
		long hours = millis / 3_600_000;
		long minutes = millis / 60_000 % 60;
		long secondMillis = millis % 60_000;
		String seconds = (secondMillis / 1000) + ((secondMillis % 1000 == 0) ? ""
				: ("." + String.format(Locale.ROOT, "%03d", secondMillis % 1000)).replaceAll("0+$", ""));
		if (hours > 0) {
			return hours + "h" + minutes + "m" + seconds + "s";
		}
		return (minutes > 0) ? minutes + "m" + seconds + "s" : seconds + "s";
	}

}
