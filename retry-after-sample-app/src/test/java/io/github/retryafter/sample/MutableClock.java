package io.github.retryafter.sample;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * A wall clock that moves only when told to. Not thread-safe beyond visibility.
 */
final class MutableClock implements InstantSource {

	private volatile Instant now;

	MutableClock(Instant now) {
		this.now = now;
	}

	@Override
	public Instant instant() {
		return this.now;
	}

	void advance(Duration duration) {
		this.now = this.now.plus(duration);
	}

}
