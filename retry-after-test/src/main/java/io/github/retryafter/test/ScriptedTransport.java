package io.github.retryafter.test;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.engine.RetryRunner;

/**
 * A transport that answers each request with the next step of a script, on a {@link FakeClock}: a status with
 * headers, a timeout, a response lost after the provider applied the request, or a refused connection. A request
 * beyond the script is a test bug and throws {@link IllegalStateException}, unless the script ends with
 * {@link Builder#thenRepeat(Step)}.
 * <p>
 * When a {@link FakeProvider} is attached, a request that reaches the provider and is applied (a 2xx response, a lost
 * response, a timeout after applying) becomes a create on it. Use {@link #attempt(String, String, String)} as the
 * {@link RetryRunner.Attempt} and {@link SimResponse#ADAPTER} as the adapter.
 * <p>
 * Thread-safe: steps are taken in the order requests arrive.
 */
public final class ScriptedTransport {

	private final FakeClock clock;

	private final FakeProvider provider;

	private final List<Step> steps;

	private final Step repeat;

	private final List<SimRequest> requests = new ArrayList<>();

	private ScriptedTransport(Builder builder) {
		this.clock = builder.clock;
		this.provider = builder.provider;
		this.steps = List.copyOf(builder.steps);
		this.repeat = builder.repeat;
	}

	/**
	 * Starts a script on {@code clock}.
	 * @param clock the virtual clock requests are timed on
	 * @return a new builder
	 */
	public static Builder on(FakeClock clock) {
		return new Builder(clock);
	}

	/**
	 * One scripted answer.
	 */
	public sealed interface Step {

		/**
		 * Answer with a status and headers after a latency.
		 * @param status the status
		 * @param headers the header fields
		 * @param latency how long the round trip takes on the virtual clock
		 */
		record Respond(int status, Map<String, List<String>> headers, Duration latency) implements Step {
		}

		/**
		 * No answer within the attempt's timeout: the clock advances by the timeout and a
		 * {@link SocketTimeoutException} is thrown.
		 * @param applied whether the provider applied the request before the time ran out
		 */
		record TimeOut(boolean applied) implements Step {
		}

		/**
		 * The provider applied the request and the response was lost: an {@link IOException} (outcome unknown).
		 */
		record LoseResponse() implements Step {
		}

		/**
		 * The connection was refused: a {@link ConnectException} (not sent).
		 */
		record RefuseConnection() implements Step {
		}

		/**
		 * Returns a step answering {@code status} with header lines such as {@code "Retry-After: 2"}, at once.
		 * @param status the status
		 * @param headerLines {@code Name: value} lines
		 * @return the step
		 */
		static Step respond(int status, String... headerLines) {
			Map<String, List<String>> headers = new LinkedHashMap<>();
			for (String line : headerLines) {
				int colon = line.indexOf(':');
				if (colon <= 0) {
					throw new IllegalArgumentException("header line must read 'Name: value' but was '" + line + "'");
				}
				headers.computeIfAbsent(line.substring(0, colon).strip(), (name) -> new ArrayList<>())
					.add(line.substring(colon + 1).strip());
			}
			return new Respond(status, headers, Duration.ZERO);
		}

		/**
		 * Returns a step that times out without the provider applying the request.
		 * @return the step
		 */
		static Step timeout() {
			return new TimeOut(false);
		}

		/**
		 * Returns a step that times out after the provider applied the request.
		 * @return the step
		 */
		static Step timeoutAfterApplying() {
			return new TimeOut(true);
		}

		/**
		 * Returns a step where the provider applies the request and the response is lost.
		 * @return the step
		 */
		static Step responseLost() {
			return new LoseResponse();
		}

		/**
		 * Returns a step where the connection is refused.
		 * @return the step
		 */
		static Step connectionRefused() {
			return new RefuseConnection();
		}

	}

	/**
	 * Returns an attempt function sending {@code method path} with {@code body}, carrying the operation's idempotency
	 * key.
	 * @param method the method
	 * @param path the path
	 * @param body the body
	 * @return the attempt function
	 */
	public RetryRunner.Attempt<SimResponse> attempt(String method, String path, String body) {
		return (context) -> send(new SimRequest(method, path, context.idempotencyKey(), body, context.attempt(),
				context.timeout(), this.clock.elapsed()));
	}

	/**
	 * Sends one request: takes the next step and plays it on the clock.
	 * @param request the request
	 * @return the response
	 * @throws IOException a timeout, a lost response or a refused connection, as scripted
	 */
	public SimResponse send(SimRequest request) throws IOException {
		Objects.requireNonNull(request, "request");
		Step step;
		synchronized (this) {
			int index = this.requests.size();
			this.requests.add(request);
			if (index < this.steps.size()) {
				step = this.steps.get(index);
			}
			else if (this.repeat != null) {
				step = this.repeat;
			}
			else {
				throw new IllegalStateException("the script has " + this.steps.size() + " steps but request "
						+ (index + 1) + " arrived: " + request);
			}
		}
		if (step instanceof Step.Respond respond) {
			this.clock.advance(respond.latency());
			Optional<FakeProvider.Record> record = Optional.empty();
			if (respond.status() >= 200 && respond.status() < 300 && this.provider != null) {
				record = Optional.of(this.provider.apply(request));
			}
			return new SimResponse(respond.status(), respond.headers(), record);
		}
		if (step instanceof Step.TimeOut timeOut) {
			if (timeOut.applied() && this.provider != null) {
				this.provider.apply(request);
			}
			this.clock.advance(request.timeout());
			throw new SocketTimeoutException("simulated: no response within " + request.timeout()
					+ (timeOut.applied() ? " (the provider applied the request)" : ""));
		}
		if (step instanceof Step.LoseResponse) {
			if (this.provider != null) {
				this.provider.apply(request);
			}
			throw new IOException("simulated: connection reset after the provider applied the request");
		}
		throw new ConnectException("simulated: connection refused");
	}

	/**
	 * Returns every request received, in order.
	 * @return an immutable copy
	 */
	public synchronized List<SimRequest> requests() {
		return List.copyOf(this.requests);
	}

	/**
	 * Builds a {@link ScriptedTransport}. Not thread-safe.
	 */
	public static final class Builder {

		private final FakeClock clock;

		private FakeProvider provider;

		private final List<Step> steps = new ArrayList<>();

		private Step repeat;

		private Builder(FakeClock clock) {
			this.clock = Objects.requireNonNull(clock, "clock");
		}

		/**
		 * Attaches a provider that applies creates.
		 * @param provider the provider
		 * @return this builder
		 */
		public Builder provider(FakeProvider provider) {
			this.provider = Objects.requireNonNull(provider, "provider");
			return this;
		}

		/**
		 * Adds steps to the script.
		 * @param steps the next answers, in order
		 * @return this builder
		 */
		public Builder then(Step... steps) {
			this.steps.addAll(List.of(steps));
			return this;
		}

		/**
		 * Answers every request beyond the script with {@code step}.
		 * @param step the step to repeat
		 * @return this builder
		 */
		public Builder thenRepeat(Step step) {
			this.repeat = Objects.requireNonNull(step, "step");
			return this;
		}

		/**
		 * Builds the transport.
		 * @return the transport
		 */
		public ScriptedTransport build() {
			return new ScriptedTransport(this);
		}

	}

}
