package io.github.retryafter.test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.engine.RetryRunner;

/**
 * A response from the {@link ScriptedTransport}. Immutable.
 *
 * @param status the status
 * @param headers the header fields, name to values
 * @param record the provider's record, when the request was a create the provider applied
 */
public record SimResponse(int status, Map<String, List<String>> headers, Optional<FakeProvider.Record> record) {

	/** Reads a {@link SimResponse} for the {@link RetryRunner}. Stateless and thread-safe. */
	public static final RetryRunner.ResponseAdapter<SimResponse> ADAPTER = new RetryRunner.ResponseAdapter<>() {

		@Override
		public int status(SimResponse response) {
			return response.status();
		}

		@Override
		public HeaderSource headers(SimResponse response) {
			return response.headerSource();
		}

	};

	/**
	 * Copies the headers.
	 * @param status the status
	 * @param headers the header fields, name to values
	 * @param record the provider's record, when the request was a create the provider applied
	 */
	public SimResponse {
		headers = Map.copyOf(headers);
	}

	/**
	 * Returns the headers as a {@link HeaderSource}.
	 * @return the case-insensitive source
	 */
	public HeaderSource headerSource() {
		return HeaderSource.of(this.headers);
	}

}
