package io.github.retryafter.okhttp;

import java.io.IOException;
import java.time.Duration;

import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;
import okio.Timeout;

/**
 * What the interceptor does with a failed response it retries: reads at most a bound of its body, within the core's
 * drain window ({@link io.github.retryafter.engine.DrainBound}: never past the instant its retry is due, at most
 * 500 ms), so that its connection can go back to OkHttp's pool; a longer body, or one still arriving then, has its
 * socket closed by the read's deadline (OkHttp's timeouts close the socket when they fire), so its connection is
 * dropped, never pooled half read. The response is closed in every case. Stateless.
 */
final class FailedBodies {

	private static final long SEGMENT = 8192;

	private FailedBodies() {
	}

	/**
	 * Drains and closes {@code response}.
	 * @param response the failed response
	 * @param window the drain window ({@link io.github.retryafter.engine.DrainBound#window}); zero to close at once
	 * @param maxBytes the most bytes read
	 */
	static void discard(Response response, Duration window, long maxBytes) {
		ResponseBody body = response.body();
		if (body == null) {
			response.close();
			return;
		}
		try {
			BufferedSource source = body.source();
			Timeout timeout = source.timeout();
			boolean drained = false;
			if (!window.isNegative() && !window.isZero()) {
				timeout.deadlineNanoTime(System.nanoTime() + window.toNanos());
				drained = readToEnd(source, maxBytes);
			}
			if (!drained) {
				// OkHttp's close reads the rest for up to 100 ms; a deadline already passed makes it drop the socket
				timeout.deadlineNanoTime(System.nanoTime());
			}
		}
		catch (IOException | RuntimeException ex) {
			// An unreadable failed body: its socket is closed or about to be; close() below releases the call.
		}
		finally {
			response.close();
		}
	}

	/** Reads {@code source} to its end; {@code false} if it holds more than {@code maxBytes}. */
	private static boolean readToEnd(BufferedSource source, long maxBytes) throws IOException {
		Buffer sink = new Buffer();
		long left = maxBytes;
		while (left >= 0) {
			// one byte more than allowed tells a body at the limit from one beyond it
			long read = source.read(sink, Math.min(SEGMENT, left + 1));
			if (read < 0) {
				return true;
			}
			sink.clear();
			left -= read;
		}
		return false;
	}

}
