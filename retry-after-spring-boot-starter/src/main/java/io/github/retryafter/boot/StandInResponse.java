package io.github.retryafter.boot;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.Objects;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * The status and header fields of a failed response whose body was released while its retry was waited for: what
 * either adapter hands the caller when the engine refuses the next attempt after the wait (for instance when the
 * budget ran dry meanwhile). Its body is empty, so the header fields that framed the released body
 * ({@code Content-Length}, {@code Transfer-Encoding}) are dropped. Immutable; closing it releases nothing.
 */
public final class StandInResponse implements ClientHttpResponse {

	private static final byte[] EMPTY = new byte[0];

	private final HttpStatusCode status;

	private final String statusText;

	private final HttpHeaders headers;

	private final HttpRequest request;

	private StandInResponse(HttpStatusCode status, String statusText, HttpHeaders headers, HttpRequest request) {
		this.status = Objects.requireNonNull(status, "status");
		this.statusText = Objects.requireNonNull(statusText, "statusText");
		HttpHeaders copy = HttpHeaders.copyOf(headers);
		copy.remove(HttpHeaders.CONTENT_LENGTH);
		copy.remove(HttpHeaders.TRANSFER_ENCODING);
		this.headers = HttpHeaders.readOnlyHttpHeaders(copy);
		this.request = request;
	}

	/**
	 * Returns the stand-in of a failed response.
	 * @param status its status
	 * @param statusText its reason phrase, empty when the client does not give one
	 * @param headers its header fields, copied
	 * @param request the request it answered, or {@code null} when the client does not give it
	 * @return the stand-in
	 */
	public static StandInResponse of(HttpStatusCode status, String statusText, HttpHeaders headers,
			HttpRequest request) {
		return new StandInResponse(status, statusText, headers, request);
	}

	@Override
	public HttpStatusCode getStatusCode() {
		return this.status;
	}

	@Override
	public String getStatusText() {
		return this.statusText;
	}

	@Override
	public HttpHeaders getHeaders() {
		return this.headers;
	}

	/**
	 * Returns the request the failed response answered.
	 * @return the request, or {@code null} when the client did not give it
	 */
	public HttpRequest getRequest() {
		return this.request;
	}

	@Override
	public InputStream getBody() {
		return new ByteArrayInputStream(EMPTY);
	}

	@Override
	public void close() {
	}

}
