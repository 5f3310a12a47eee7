package io.github.retryafter.simulator;

import java.time.Instant;

import io.github.retryafter.hint.HttpDate;
import io.github.retryafter.test.FakeClock;

/**
 * A running provider: its outage, its rate limit's bucket, its clock. Not thread-safe: a run is confined to one
 * thread.
 */
final class OutageProvider implements SimulatedProvider {

	private static final Instant ORIGIN = FakeClock.DEFAULT_ORIGIN;

	private static final long SECOND = 1_000_000_000L;

	private final ProviderModel model;

	private final long outageEnd;

	private final long offsetNanos;

	private final long capSeconds;

	private double tokens;

	private long refilledAt = Long.MIN_VALUE;

	OutageProvider(ProviderModel model, long outageEnd) {
		this.model = model;
		this.outageEnd = outageEnd;
		this.offsetNanos = model.clockOffset().toNanos();
		this.capSeconds = model.hintCap().toSeconds();
	}

	@Override
	public Answer answer(long now) {
		long dateSecond = ORIGIN.getEpochSecond() + Math.floorDiv(now + this.offsetNanos, SECOND);
		String date = HttpDate.format(dateSecond);
		if (now < this.outageEnd) {
			if (this.model.hintForm() == ProviderModel.HintForm.DELAY_SECONDS) {
				long hint = hintSeconds(this.outageEnd - now);
				return new Answer(503, Long.toString(hint), date, now + hint * SECOND);
			}
			// The date names an instant on the provider's clock: its Date plus the hint, in whole seconds.
			long dateNanos = (dateSecond - ORIGIN.getEpochSecond()) * SECOND - this.offsetNanos;
			long hint = hintSeconds(this.outageEnd - dateNanos);
			return new Answer(503, HttpDate.format(dateSecond + hint), date, dateNanos + hint * SECOND);
		}
		if (this.model.rateLimit().isPresent()) {
			ProviderModel.RateLimit limit = this.model.rateLimit().get();
			if (this.refilledAt < this.outageEnd) {
				this.refilledAt = this.outageEnd;
				this.tokens = limit.burst();
			}
			this.tokens = Math.min(limit.burst(), this.tokens + (now - this.refilledAt) * limit.perSecond() / SECOND);
			this.refilledAt = now;
			if (this.tokens < 1) {
				long untilToken = (long) Math.ceil((1 - this.tokens) / limit.perSecond() * SECOND);
				Answer refusal;
				if (this.model.hintForm() == ProviderModel.HintForm.DELAY_SECONDS) {
					long hint = hintSeconds(untilToken);
					refusal = new Answer(429, Long.toString(hint), date, now + hint * SECOND);
				}
				else {
					long dateNanos = (dateSecond - ORIGIN.getEpochSecond()) * SECOND - this.offsetNanos;
					long hint = hintSeconds(now + untilToken - dateNanos);
					refusal = new Answer(429, HttpDate.format(dateSecond + hint), date, dateNanos + hint * SECOND);
				}
				return limit.announced() ? refusal.announcing(limit, 0, hintSeconds(untilToken)) : refusal;
			}
			this.tokens -= 1;
			if (limit.announced()) {
				long untilFull = (long) Math.ceil((limit.burst() - this.tokens) / limit.perSecond() * SECOND);
				return new Answer(200, null, date, Answer.NONE).announcing(limit, (long) Math.floor(this.tokens),
						Math.floorDiv(untilFull + SECOND - 1, SECOND));
			}
		}
		return new Answer(200, null, date, Answer.NONE);
	}

	private long hintSeconds(long nanos) {
		return Math.max(1, Math.min(this.capSeconds, Math.floorDiv(nanos + SECOND - 1, SECOND)));
	}

}
