package io.github.retryafter.boot.restclient;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;

import org.springframework.http.client.ClientHttpResponse;
import org.springframework.util.ClassUtils;

import io.github.retryafter.HeaderSource;

/**
 * A response whose attempt is still bounded by its {@link AttemptGuard}: each read of its body, and closing it
 * (Spring's responses read the rest of the body when closed, whatever its length), end at the bound with a
 * {@link java.net.SocketTimeoutException} and the connection aborted. The bound is a read timeout's: it runs while a
 * read waits, afresh for each, so a streamed body that keeps coming is never cut, however long it lasts. The guard
 * is disarmed once the body has been read to its end or the response closed.
 * <p>
 * A failed response the engine retries is {@link #discard discarded} instead: its body is read at most
 * {@code retry.after.max-drain} bytes and never past the instant its retry is due, so its connection can go back to
 * the pool; a longer body, or one still arriving at that instant, has its connection aborted.
 * <p>
 * Used by one thread at a time, like any {@link ClientHttpResponse}; the guard's watchdog reaches it only under the
 * guard's lock.
 */
final class GuardedResponse extends DelegatingResponse implements HeaderSource {

	private static final boolean HTTP_COMPONENTS_PRESENT = ClassUtils.isPresent(
			"org.apache.hc.core5.http.io.EofSensorInputStream", GuardedResponse.class.getClassLoader());

	private static final int DRAIN_BUFFER = 4096;

	private final AttemptGuard guard;

	// guarded by the guard's lock: taken once, so the watchdog and the reader share one stream
	private InputStream rawBody;

	private InputStream body;

	GuardedResponse(ClientHttpResponse response, AttemptGuard guard) {
		super(response);
		this.guard = guard;
	}

	/** The response's header fields, for the engine: the response itself is its header source. */
	@Override
	public List<String> values(String name) {
		return this.response.getHeaders().getOrEmpty(name);
	}

	@Override
	public InputStream getBody() throws IOException {
		if (this.body == null) {
			this.body = new GuardedBody(rawBody());
		}
		return this.body;
	}

	/**
	 * Closes the response, within the attempt's bound, then stops guarding it.
	 */
	@Override
	public void close() {
		this.guard.enterRead();
		try {
			this.response.close();
		}
		finally {
			this.guard.exitDisarming();
		}
	}

	/**
	 * Releases the response of an attempt the engine retries: reads at most {@code maxBytes} of the rest of its body
	 * within {@code within}, so that its connection can be reused, and aborts the connection if the body is longer or
	 * still arriving then. Closes the response in every case.
	 * @param within the time the drain may take: until the retry is due, or less
	 * @param maxBytes the most it may read
	 */
	void discard(Duration within, long maxBytes) {
		this.guard.shorten(within);
		boolean drained = false;
		try {
			if (!within.isZero()) {
				InputStream raw = rawBody();
				drained = this.guard.call(() -> readToEnd(raw, maxBytes));
			}
		}
		catch (IOException | RuntimeException ex) {
			// An unreadable failed body: its connection is aborted below.
		}
		finally {
			if (!drained) {
				this.guard.abortNow();
			}
			close();
		}
	}

	/**
	 * Aborts the body so that a blocked read ends and the connection is dropped, not pooled. Called under the guard's
	 * lock, by the watchdog or by a drain that gave up; does not block.
	 */
	void abortBody() {
		try {
			InputStream raw = (this.rawBody != null) ? this.rawBody : this.response.getBody();
			this.rawBody = raw;
			if (HTTP_COMPONENTS_PRESENT && HttpComponents.abort(raw)) {
				return;
			}
			raw.close();
		}
		catch (IOException | RuntimeException ex) {
			// Aborting a body that already failed: it is as closed as it gets.
		}
	}

	private InputStream rawBody() throws IOException {
		synchronized (this.guard) {
			if (this.rawBody == null) {
				this.rawBody = this.response.getBody();
			}
			return this.rawBody;
		}
	}

	/** Reads {@code body} to its end; {@code false} if it holds more than {@code maxBytes}. */
	private static boolean readToEnd(InputStream body, long maxBytes) throws IOException {
		byte[] buffer = new byte[DRAIN_BUFFER];
		long left = maxBytes;
		while (left >= 0) {
			// one byte more than allowed tells a body at the limit from one beyond it
			int n = body.read(buffer, 0, (left < buffer.length) ? (int) left + 1 : buffer.length);
			if (n < 0) {
				return true;
			}
			left -= n;
		}
		return false;
	}

	/**
	 * The body as the caller reads it: each read bounded by the guard, from its start; the guard disarmed at the end of
	 * the body; a read the guard cut short reported as a timeout.
	 */
	private final class GuardedBody extends InputStream {

		private final InputStream raw;

		GuardedBody(InputStream raw) {
			this.raw = raw;
		}

		@Override
		public int read() throws IOException {
			return ended(guarded(this.raw::read));
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			return ended(guarded(() -> this.raw.read(buffer, offset, length)));
		}

		/**
		 * Disarms the guard at the end of the body; an end that the guard caused (Reactor Netty reports an aborted
		 * body as ended) is a timeout, never a short body passed off as whole.
		 */
		private int ended(int read) throws IOException {
			if (read < 0) {
				AttemptGuard guard = GuardedResponse.this.guard;
				if (guard.fired()) {
					throw guard.timedOut(null);
				}
				guard.disarm();
			}
			return read;
		}

		@Override
		public int available() throws IOException {
			return guarded(this.raw::available);
		}

		@Override
		public void close() throws IOException {
			GuardedResponse.this.close();
		}

		private <T> T guarded(AttemptGuard.IoCall<T> call) throws IOException {
			AttemptGuard guard = GuardedResponse.this.guard;
			try {
				return guard.read(call);
			}
			catch (IOException | RuntimeException ex) {
				if (guard.fired()) {
					throw guard.timedOut(ex);
				}
				throw ex;
			}
		}

	}

	/** Apache HttpClient 5's abort: drops the connection instead of reading the rest of the body. */
	private static final class HttpComponents {

		static boolean abort(InputStream body) throws IOException {
			if (body instanceof org.apache.hc.core5.http.io.EofSensorInputStream sensor) {
				sensor.abort();
				return true;
			}
			return false;
		}

	}

}
