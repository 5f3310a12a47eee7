package io.github.retryafter.boot.autoconfigure;

import io.github.retryafter.engine.HintMode;

/**
 * The hint modes offered to Spring users. The engine's {@code CAPPED} mode waits less than the server asked and is
 * deliberately absent.
 */
public enum RetryHintMode {

	/** The server's floor plus jitter drawn above it. */
	FLOOR_PLUS_JITTER(HintMode.FLOOR_PLUS_JITTER),

	/** Exactly the server's floor. */
	EXACT(HintMode.EXACT),

	/** The larger of the floor and a backoff draw, plus jitter. */
	MAX_WITH_BACKOFF(HintMode.MAX_WITH_BACKOFF);

	private final HintMode engineMode;

	RetryHintMode(HintMode engineMode) {
		this.engineMode = engineMode;
	}

	HintMode engineMode() {
		return this.engineMode;
	}

}
