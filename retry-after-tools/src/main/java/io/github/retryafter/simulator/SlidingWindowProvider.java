package io.github.retryafter.simulator;

import java.util.ArrayDeque;
import java.util.Map;

import io.github.retryafter.hint.HttpDate;
import io.github.retryafter.test.FakeClock;

/**
 * A running {@link SlidingWindow} provider: it keeps the arrival of each request it admitted within the last window,
 * admits a request while fewer than the window's count are kept, and refuses the rest with {@code 429}, the window's
 * wait as {@code retry-after-ms} and as {@code Retry-After} (delay-seconds, rounded up), its {@code Date} on true time
 * and no other field. The instruction it
 * remembers for a refusal is its arrival plus the {@code Retry-After}. Not thread-safe: a run is confined to one thread.
 */
final class SlidingWindowProvider implements SimulatedProvider {

	private static final long SECOND = 1_000_000_000L;

	private final SlidingWindow limit;

	private final long window;

	private final long retryAfter;

	// arrivals of the requests admitted within the last window, oldest first; at most limit.requests()
	private final ArrayDeque<Long> admitted = new ArrayDeque<>();

	SlidingWindowProvider(ProviderModel model) {
		this.limit = model.slidingWindow()
			.orElseThrow(() -> new IllegalArgumentException("the provider has no sliding window"));
		this.window = this.limit.window().toNanos();
		this.retryAfter = this.limit.retryAfter().toNanos();
	}

	@Override
	public Answer answer(long now) {
		while (!this.admitted.isEmpty() && this.admitted.peekFirst() <= now - this.window) {
			this.admitted.pollFirst();
		}
		String date = HttpDate.format(FakeClock.DEFAULT_ORIGIN.getEpochSecond() + Math.floorDiv(now, SECOND));
		if (this.admitted.size() < this.limit.requests()) {
			this.admitted.addLast(now);
			return new Answer(200, null, date, Answer.NONE);
		}
		return new Answer(429, Long.toString(Math.floorDiv(this.retryAfter + SECOND - 1, SECOND)), date,
				now + this.retryAfter, Map.of("retry-after-ms", Long.toString(this.limit.retryAfter().toMillis())));
	}

}
