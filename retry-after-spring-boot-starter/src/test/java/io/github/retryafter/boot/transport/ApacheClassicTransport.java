package io.github.retryafter.boot.transport;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.hc.client5.http.classic.HttpClient;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.util.Timeout;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.Sleeper;
import io.github.retryafter.engine.Decision;
import io.github.retryafter.engine.Ending;
import io.github.retryafter.engine.OperationSpec;
import io.github.retryafter.engine.Permit;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryLoop;
import io.github.retryafter.engine.RetryOperation;

/**
 * A new client on the core's transport contract, in one file: Apache HttpClient 5's classic API. It only sends,
 * reads the status and header fields, and releases a response; the loop, the waits, the attempt's fields, the
 * classification and the ending rule are the core's. Give it a client built with {@code disableAutomaticRetries()}:
 * Apache's default strategy retries a {@code 503} itself, a second layer. The example docs/architecture.md points
 * to, run by {@link ApacheClassicTransportTests} against a loopback server.
 */
final class ApacheClassicTransport {

	private final HttpClient client;

	private final RetryEngine engine;

	private final RetryLoop loop;

	ApacheClassicTransport(HttpClient client, RetryEngine engine, Sleeper sleeper) {
		this.client = client;
		this.engine = engine;
		this.loop = RetryLoop.of(engine.ticker(), sleeper);
	}

	/** Sends {@code request} until the engine stops; the caller gets the last response as the client made it. */
	ClassicHttpResponse execute(ClassicHttpRequest request) throws IOException {
		RetryOperation operation = this.engine.start(OperationSpec.of(request.getMethod()));
		return this.loop.run(operation, new Exchange(operation, request));
	}

	/** One operation's side of the loop. */
	private final class Exchange implements RetryLoop.Exchange<ClassicHttpResponse, ClassicHttpResponse, IOException> {

		private final RetryOperation operation;

		private final ClassicHttpRequest request;

		Exchange(RetryOperation operation, ClassicHttpRequest request) {
			this.operation = operation;
			this.request = request;
		}

		@Override
		public ClassicHttpResponse send(Permit.Proceed proceed) throws IOException {
			proceed.writeFields(this.request::setHeader);
			HttpClientContext context = HttpClientContext.create();
			proceed.bound().ifPresent((bound) -> context.setRequestConfig(RequestConfig.custom()
				.setResponseTimeout(Timeout.of(bound))
				.setConnectionRequestTimeout(Timeout.of(bound))
				.build()));
			return ApacheClassicTransport.this.client.executeOpen(null, this.request, context);
		}

		@Override
		public int status(ClassicHttpResponse response) {
			return response.getCode();
		}

		@Override
		public HeaderSource headers(ClassicHttpResponse response) {
			return (name) -> {
				List<String> values = new ArrayList<>();
				for (Header header : response.getHeaders(name)) {
					values.add(header.getValue());
				}
				return values;
			};
		}

		@Override
		public void discard(ClassicHttpResponse response) {
			try {
				// released unread: the client closes a connection whose body was not consumed
				response.close();
			}
			catch (IOException ex) {
				// Dropped either way.
			}
		}

		@Override
		public ClassicHttpResponse end(Decision.Stop stop, ClassicHttpResponse response, Throwable failure)
				throws IOException {
			if (response != null) {
				return response;
			}
			IOException account = new IOException(Ending.describe(this.operation.spec().provider(), stop.outcome(),
					this.operation.attempts(), stop.reason(), this.operation.notBefore()));
			Throwable thrown = Ending.attach(failure, account);
			throw (thrown instanceof IOException io) ? io : new IOException(thrown);
		}

	}

}
