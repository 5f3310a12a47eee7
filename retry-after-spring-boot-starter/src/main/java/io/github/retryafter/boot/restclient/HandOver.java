package io.github.retryafter.boot.restclient;

import java.io.IOException;
import java.net.URI;
import java.util.Objects;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.ResponseErrorHandler;
import org.springframework.web.client.RestClient;

import io.github.retryafter.boot.RetryAfterOutcomeException;

/**
 * Attaches the hand-over (how the operation ended, and the instant the provider named) to whatever a client's own
 * status handler or {@link ResponseErrorHandler} throws for a response retry-after ended an operation on, and to
 * nothing else: the handler decides, retry-after only adds a suppressed {@link RetryAfterOutcomeException}. Used for
 * Boot's {@code RestClient.Builder} ({@link HandOverRestClientBuilder}) and for the error handler of every
 * {@code RestTemplate} built from Boot's {@code RestTemplateBuilder}. Stateless and thread-safe.
 */
public final class HandOver {

	private HandOver() {
	}

	/**
	 * Adds the operation's outcome to {@code thrown} as suppressed when {@code response} is one retry-after ended an
	 * operation on and {@code thrown} does not carry it yet.
	 * @param response the response the handler was given
	 * @param thrown what the handler threw
	 */
	static void attach(ClientHttpResponse response, Throwable thrown) {
		if (response instanceof EndedResponse ended) {
			RetryAfterOutcomeException outcome = ended.outcome();
			if (thrown != outcome) {
				for (Throwable suppressed : thrown.getSuppressed()) {
					if (suppressed == outcome) {
						return;
					}
				}
				thrown.addSuppressed(outcome);
			}
		}
	}

	/**
	 * Returns a handler that decides as {@code handler} does ({@code hasError} and {@code handleError} are its own),
	 * attaching the hand-over to what it throws; {@code handler} itself when it already attaches.
	 * @param handler an error handler of the application's, a library's or Spring's default
	 * @return the handler that attaches
	 */
	public static ResponseErrorHandler attaching(ResponseErrorHandler handler) {
		Objects.requireNonNull(handler, "handler");
		return (handler instanceof AttachingErrorHandler) ? handler : new AttachingErrorHandler(handler);
	}

	/**
	 * Returns {@code handler}, attaching the hand-over to what it throws.
	 * @param handler a status handler of the application's or a library's
	 * @return the handler that attaches
	 */
	static RestClient.ResponseSpec.ErrorHandler attaching(RestClient.ResponseSpec.ErrorHandler handler) {
		Objects.requireNonNull(handler, "handler");
		return (request, response) -> {
			try {
				handler.handle(request, response);
			}
			catch (IOException | RuntimeException ex) {
				attach(response, ex);
				throw ex;
			}
		};
	}

	/** A {@link ResponseErrorHandler} that decides as the one it wraps, and attaches the hand-over. */
	private record AttachingErrorHandler(ResponseErrorHandler handler) implements ResponseErrorHandler {

		@Override
		public boolean hasError(ClientHttpResponse response) throws IOException {
			return this.handler.hasError(response);
		}

		@Override
		public void handleError(URI url, HttpMethod method, ClientHttpResponse response) throws IOException {
			try {
				this.handler.handleError(url, method, response);
			}
			catch (IOException | RuntimeException ex) {
				attach(response, ex);
				throw ex;
			}
		}

	}

}
