package io.github.retryafter.boot.retry;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

import io.github.retryafter.Cancellation;
import io.github.retryafter.Sleeper;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.engine.NotBefore;
import io.github.retryafter.engine.RetryPolicy;

/**
 * How an outer retry layer waits for the instant a provider named: the wall clock the instant is read against, the
 * monotonic ticker a wait and an elapsed time run on, the sleeper that blocks, and each provider's {@code max-wait},
 * beyond which an outer layer does not block a thread but hands the failure on (as it does for a
 * {@code WAIT_TOO_LONG} hand-over, whatever its length). The starter provides one as a bean, built from the
 * application's clock, ticker and sleeper beans (a {@code FakeClock} in tests) and its providers' settings, and
 * closes it with the application context. Thread-safe.
 */
public final class NotBeforeWaits implements AutoCloseable {

	/** The core's own default {@code max-wait} (30 s), for a layer that has no provider settings to read. */
	public static final Duration DEFAULT_MAX_WAIT = RetryPolicy.builder().build().planner().maxWait().orElseThrow();

	private final Ticker ticker;

	private final InstantSource wallClock;

	private final Sleeper sleeper;

	// cancelled once, when these waits are closed
	private final Cancellation closed = Cancellation.create();

	// provider name (absent when the failure names none) -> the longest wait an outer layer may block for
	private final Function<Optional<String>, Duration> maxWait;

	private NotBeforeWaits(Ticker ticker, InstantSource wallClock, Sleeper sleeper,
			Function<Optional<String>, Duration> maxWait) {
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
		this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
		this.maxWait = maxWait;
	}

	/**
	 * Returns waits on the system clocks that really sleep, with the core's default {@code max-wait} (30 s) for every
	 * provider.
	 * @return the waits
	 */
	public static NotBeforeWaits system() {
		return of(Ticker.system(), InstantSource.system(), Sleeper.system(), DEFAULT_MAX_WAIT);
	}

	/**
	 * Returns waits with one {@code max-wait} for every provider (a {@code FakeClock} passed three times in tests).
	 * @param ticker the monotonic clock waits and elapsed times run on
	 * @param wallClock the clock a provider's instant is read against
	 * @param sleeper how to wait
	 * @param maxWait the longest a thread is blocked for a provider's instant
	 * @return the waits
	 */
	public static NotBeforeWaits of(Ticker ticker, InstantSource wallClock, Sleeper sleeper, Duration maxWait) {
		Objects.requireNonNull(maxWait, "maxWait");
		return new NotBeforeWaits(ticker, wallClock, sleeper, (provider) -> maxWait);
	}

	/**
	 * Returns waits with each provider's own {@code max-wait} (its {@code deadline} when it has none), and the
	 * {@code default} provider's for a failure that names no configured provider.
	 * @param ticker the monotonic clock waits and elapsed times run on
	 * @param wallClock the clock a provider's instant is read against
	 * @param sleeper how to wait
	 * @param providers the configured providers
	 * @return the waits
	 */
	public static NotBeforeWaits of(Ticker ticker, InstantSource wallClock, Sleeper sleeper,
			RetryAfterProviders providers) {
		Objects.requireNonNull(providers, "providers");
		return new NotBeforeWaits(ticker, wallClock, sleeper, (provider) -> provider.flatMap(providers::get)
			.or(() -> providers.get("default"))
			.map((found) -> found.policy().planner().maxWait().orElse(found.policy().deadline()))
			.orElse(DEFAULT_MAX_WAIT));
	}

	/**
	 * Reads what a failure hands on.
	 * @param failure the exception a call ended with
	 * @return the instant still ahead, empty when the failure carries none or it has passed
	 */
	Optional<Ahead> ahead(Throwable failure) {
		Optional<HandOver> handOver = HandOver.find(failure);
		if (handOver.isEmpty()) {
			return Optional.empty();
		}
		NotBefore notBefore = handOver.get().notBefore();
		Duration left = notBefore.remainingAt(this.wallClock);
		if (left.isZero()) {
			return Optional.empty();
		}
		boolean tooLong = handOver.get().waitTooLong()
				|| left.compareTo(this.maxWait.apply(handOver.get().provider())) > 0;
		return Optional.of(new Ahead(left, tooLong));
	}

	/**
	 * Reads the ticker.
	 * @return the ticker's nanoseconds
	 */
	long now() {
		return this.ticker.read();
	}

	/**
	 * Blocks for {@code wait}, unless these waits are closed first.
	 * @param wait how long
	 * @return {@code true} when the wait ran its course, {@code false} when these waits were closed
	 * @throws InterruptedException if the thread is interrupted
	 */
	boolean sleep(Duration wait) throws InterruptedException {
		if (!this.closed.isCancelled()) {
			this.sleeper.sleep(wait, this.closed);
		}
		return !this.closed.isCancelled();
	}

	/**
	 * Ends every wait in progress, whose retry is then declined, and declines every later one: the starter closes its
	 * bean with the application context, so no thread stays blocked for a provider past shutdown.
	 */
	@Override
	public void close() {
		this.closed.cancel();
	}

	/**
	 * Returns a wait of at least {@code wait} in whole milliseconds, as Spring's back-offs count.
	 * @param wait the wait
	 * @return the milliseconds, rounded up: a millisecond short of the provider's instant is a retry too early
	 */
	static long ceilMillis(Duration wait) {
		return wait.toMillis() + ((wait.toNanos() % 1_000_000 == 0) ? 0 : 1);
	}

	@Override
	public String toString() {
		return "NotBeforeWaits[wallClock=" + this.wallClock + ", sleeper=" + this.sleeper + "]";
	}

	/**
	 * An instant still ahead.
	 * @param left what is left of it on the wall clock, positive
	 * @param tooLong whether it lies beyond what a thread may block for: beyond the provider's {@code max-wait}, or
	 * handed over as {@code WAIT_TOO_LONG}
	 */
	record Ahead(Duration left, boolean tooLong) {
	}

}
