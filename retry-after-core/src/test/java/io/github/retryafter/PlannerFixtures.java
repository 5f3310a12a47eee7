package io.github.retryafter;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.github.retryafter.hint.RetryAfterPlanner;

/**
 * Shared fixtures for the planner's tests: the server's frame of seed 001 and fixed clocks. Nothing here reads the
 * real clock.
 */
final class PlannerFixtures {

	/** Seed 001's REFERENCE, 2026-09-08T12:00:00Z, as the server's {@code Date}. */
	static final Instant SERVER_NOW = Instant.parse("2026-09-08T12:00:00Z");

	static final String DATE = "Tue, 08 Sep 2026 12:00:00 GMT";

	static final String THIRTY_SECONDS_LATER = "Tue, 08 Sep 2026 12:00:30 GMT";

	private PlannerFixtures() {
	}

	/**
	 * Builds headers from name, value pairs; a name given twice becomes two field lines.
	 */
	static HeaderSource headers(String... nameValuePairs) {
		Map<String, List<String>> map = new LinkedHashMap<>();
		for (int i = 0; i < nameValuePairs.length; i += 2) {
			map.computeIfAbsent(nameValuePairs[i], name -> new ArrayList<>()).add(nameValuePairs[i + 1]);
		}
		return HeaderSource.of(map);
	}

	static RetryAfterPlanner.Builder planner(Instant clientWallClock) {
		return RetryAfterPlanner.builder()
			.wallClock(InstantSource.fixed(clientWallClock))
			.ticker(new FakeTicker(0))
			.random(() -> 0.5);
	}

	static PlannerOptions jitter(JitterMode mode) {
		return PlannerOptions.builder().jitter(mode).build();
	}

	/** A monotonic clock that moves only when told to. */
	static final class FakeTicker implements Ticker {

		private final AtomicLong nanos;

		FakeTicker(long start) {
			this.nanos = new AtomicLong(start);
		}

		@Override
		public long read() {
			return this.nanos.get();
		}

		void advance(long delta) {
			this.nanos.addAndGet(delta);
		}

	}

}
