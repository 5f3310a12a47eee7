package io.github.retryafter.simulator;

import java.util.List;
import java.util.OptionalDouble;

import io.github.retryafter.Scope;
import io.github.retryafter.Ticker;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.budget.RetryBudget;
import io.github.retryafter.fleet.FleetBucket;
import io.github.retryafter.fleet.FleetStore;

/**
 * A fleet budget <b>without coordination</b>, for {@link FleetStoreSimulation.Mode#STORE_UNCOORDINATED}: the bucket is
 * shared through the store, but every retry is decided on this instance's fixed share (1/N) of the last level read,
 * a take is sent at once, refunds reach the store only at a flush, and an empty share refuses a retry at once. It
 * leaves out what the real {@code FleetRetryBudget} adds (tokens leased by demand, a refund not yet flushed taken over
 * by the next retry, a wait for tokens held in flight), so the simulator can show the collapse a fleet meets without
 * them; it runs over the same in-memory store. Confined to the run's thread.
 */
final class UncoordinatedFleetBudget implements RetryBudget, FleetStore.Participant {

	private static final double NANOS_PER_SECOND = 1_000_000_000.0;

	private final FleetStore store;

	private final FleetBucket bucket;

	private final BudgetSettings settings;

	private final Ticker ticker;

	private double share;

	private long shareAt;

	private double debt;

	private long unflushedRefunds;

	private long unflushedSuccesses;

	private double reading;

	private long readingAt;

	private boolean flushRequested;

	UncoordinatedFleetBudget(FleetStore store, String provider, BudgetSettings settings, Ticker ticker) {
		this.store = store;
		this.bucket = FleetBucket.ofProvider(provider, settings);
		this.settings = settings;
		this.ticker = ticker;
		this.reading = settings.capacity();
		this.share = settings.capacity() / store.runtime().instances();
		store.runtime().register(this);
	}

	@Override
	public boolean tryAcquire(String provider) {
		if (refreshedShare(this.ticker.read()) < 1) {
			return false;
		}
		this.share -= 1;
		this.debt += 1;
		requestFlush();
		return true;
	}

	@Override
	public void recordSuccess(String provider) {
		this.unflushedSuccesses++;
	}

	@Override
	public void refund(String provider) {
		this.unflushedRefunds++;
	}

	@Override
	public double availableTokens(String provider) {
		double elapsed = Math.max(0, this.ticker.read() - this.readingAt) / NANOS_PER_SECOND;
		return Math.min(this.settings.capacity(), this.reading + this.settings.refillPerSecond() * elapsed);
	}

	@Override
	public double globalTokens() {
		return Double.POSITIVE_INFINITY;
	}

	/** Sends the deposits and refunds less what was taken, and reads the level back: the share is its part of it. */
	@Override
	public void sync() {
		double gained = this.unflushedSuccesses * this.settings.depositRatio() + this.unflushedRefunds;
		this.unflushedSuccesses = 0;
		this.unflushedRefunds = 0;
		double delta = gained - this.debt;
		this.debt = 0;
		List<OptionalDouble> levels = this.store.deposit(List.of(new FleetStore.Deposit(this.bucket, delta)))
			.orElseThrow();
		this.reading = levels.get(0).orElseThrow();
		this.readingAt = this.ticker.read();
		this.share = this.reading / this.store.runtime().instances();
		this.shareAt = this.readingAt;
	}

	@Override
	public void onFallback() {
	}

	@Override
	public void onRejoin() {
	}

	private void requestFlush() {
		if (!this.flushRequested) {
			this.flushRequested = true;
			this.store.runtime().submit(() -> {
				this.flushRequested = false;
				sync();
			});
		}
	}

	private double refreshedShare(long now) {
		int n = this.store.runtime().instances();
		double elapsed = Math.max(0, now - this.shareAt) / NANOS_PER_SECOND;
		if (this.share < this.settings.capacity() / n) {
			this.share = Math.min(this.settings.capacity() / n, this.share + this.settings.refillPerSecond() / n * elapsed);
		}
		this.shareAt = now;
		return this.share;
	}

	@Override
	public void settle(Scope scope) {
	}

}
