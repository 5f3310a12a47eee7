package io.github.retryafter.boot.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hostile HTTP/1.1 server on a raw {@link ServerSocket} on 127.0.0.1: each request gets the next {@link Behaviour}
 * of its script (the last one repeats), whatever the path. It records when each request arrived, on which connection,
 * how many body bytes it wrote, and when the client closed each connection, so a test can assert what the server saw.
 * Times are {@link System#nanoTime()} readings. Thread-safe; one thread per connection plus one writer each.
 */
public final class RawHttpServer implements AutoCloseable {

	private final ServerSocket server;

	private final ExecutorService threads = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "raw-http-server");
		thread.setDaemon(true);
		return thread;
	});

	// this test's server only: every request and connection it saw, a handful per test
	private final List<Request> requests = new CopyOnWriteArrayList<>();

	private final List<Connection> connections = new CopyOnWriteArrayList<>();

	private final ConcurrentLinkedQueue<Behaviour> script = new ConcurrentLinkedQueue<>();

	private volatile Behaviour last = Behaviour.ok();

	private final AtomicInteger connectionIds = new AtomicInteger();

	public RawHttpServer() {
		try {
			this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		this.threads.execute(this::accept);
	}

	/**
	 * Answers the next requests with {@code behaviours}, in order; the last one answers every request after them.
	 * @param behaviours what to do
	 * @return this server
	 */
	public RawHttpServer script(Behaviour... behaviours) {
		for (Behaviour behaviour : behaviours) {
			this.script.add(behaviour);
		}
		return this;
	}

	public URI uri() {
		return URI.create("http://127.0.0.1:" + this.server.getLocalPort());
	}

	public List<Request> requests() {
		return List.copyOf(this.requests);
	}

	public List<Connection> connections() {
		return List.copyOf(this.connections);
	}

	/**
	 * Returns when the client closed {@code connection}, waiting for it up to {@code within}.
	 * @param connection the connection's number, from 1
	 * @param within how long to wait for the close
	 * @return the {@code nanoTime} of the close, empty if it is still open
	 * @throws InterruptedException if interrupted while waiting
	 */
	public Optional<Long> closedAt(int connection, Duration within) throws InterruptedException {
		long until = System.nanoTime() + within.toNanos();
		while (true) {
			for (Connection each : this.connections) {
				if (each.id == connection && each.closedAt != 0) {
					return Optional.of(each.closedAt);
				}
			}
			if (System.nanoTime() - until > 0) {
				return Optional.empty();
			}
			Thread.sleep(10);
		}
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket socket = this.server.accept();
				Connection connection = new Connection(this.connectionIds.incrementAndGet(), socket);
				this.connections.add(connection);
				this.threads.execute(() -> serve(connection));
			}
			catch (IOException ex) {
				return;
			}
		}
	}

	/** Reads requests until the client closes; each answer is written by the connection's writer thread. */
	private void serve(Connection connection) {
		ExecutorService writer = Executors.newSingleThreadExecutor((task) -> {
			Thread thread = new Thread(task, "raw-http-writer");
			thread.setDaemon(true);
			return thread;
		});
		try (Socket socket = connection.socket) {
			InputStream in = socket.getInputStream();
			while (true) {
				String head = readHead(in);
				if (head == null) {
					break;
				}
				Request request = new Request(this.requests.size() + 1, connection.id, System.nanoTime(),
						head.substring(0, head.indexOf('\r')));
				this.requests.add(request);
				Behaviour behaviour = next();
				writer.execute(() -> answer(behaviour, socket, connection));
			}
		}
		catch (IOException ex) {
			// reset by the client: closed all the same
		}
		finally {
			connection.closedAt = System.nanoTime();
			writer.shutdownNow();
		}
	}

	private static void answer(Behaviour behaviour, Socket socket, Connection connection) {
		try {
			behaviour.write(socket.getOutputStream(), connection);
		}
		catch (IOException | InterruptedException ex) {
			// the client went away, or the server is closing
		}
	}

	private synchronized Behaviour next() {
		Behaviour behaviour = this.script.poll();
		if (behaviour != null) {
			this.last = behaviour;
			return behaviour;
		}
		return this.last;
	}

	/** Reads a request head (no body: the tests send GETs); {@code null} at the end of the stream. */
	private static String readHead(InputStream in) throws IOException {
		ByteArrayOutputStream head = new ByteArrayOutputStream();
		int matched = 0;
		byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
		while (matched < end.length) {
			int b = in.read();
			if (b < 0) {
				return null;
			}
			head.write(b);
			matched = (b == end[matched]) ? matched + 1 : ((b == end[0]) ? 1 : 0);
		}
		return head.toString(StandardCharsets.US_ASCII);
	}

	@Override
	public void close() {
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		for (Connection connection : this.connections) {
			try {
				connection.socket.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
		}
		this.threads.shutdownNow();
	}

	/**
	 * One request as the server saw it.
	 *
	 * @param number its number, from 1
	 * @param connection the connection it came on, from 1
	 * @param arrivedAt when its head was read, as a {@code nanoTime}
	 * @param line its request line
	 */
	public record Request(int number, int connection, long arrivedAt, String line) {
	}

	/** One connection: its socket and when the client closed it ({@code 0} while open). */
	public static final class Connection {

		private final int id;

		private final Socket socket;

		private volatile long closedAt;

		private final AtomicInteger bodyBytesWritten = new AtomicInteger();

		Connection(int id, Socket socket) {
			this.id = id;
			this.socket = socket;
		}

		public int id() {
			return this.id;
		}

		public int bodyBytesWritten() {
			return this.bodyBytesWritten.get();
		}

	}

	/**
	 * What the server does with one request.
	 */
	@FunctionalInterface
	public interface Behaviour {

		/**
		 * Writes the answer, or holds it; runs on the connection's writer thread.
		 * @param out the connection's output
		 * @param connection the connection, to count body bytes on
		 * @throws IOException when the client went away
		 * @throws InterruptedException when the server is closing
		 */
		void write(OutputStream out, Connection connection) throws IOException, InterruptedException;

		/** {@code 200} with a two-byte body. */
		static Behaviour ok() {
			return (out, connection) -> {
				out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok"
					.getBytes(StandardCharsets.US_ASCII));
				out.flush();
			};
		}

		/**
		 * {@code 503} with {@code Retry-After}, whose body of {@code length} bytes trickles one byte per
		 * {@code every}.
		 */
		static Behaviour trickling503(String retryAfter, int length, Duration every) {
			return (out, connection) -> {
				out.write(("HTTP/1.1 503 Service Unavailable\r\nRetry-After: " + retryAfter + "\r\nContent-Length: "
						+ length + "\r\nContent-Type: text/plain\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
				out.flush();
				for (int i = 0; i < length; i++) {
					TimeUnit.NANOSECONDS.sleep(every.toNanos());
					out.write('x');
					out.flush();
					connection.bodyBytesWritten.incrementAndGet();
				}
			};
		}

		/** Reads the request and never answers. */
		static Behaviour silent() {
			return (out, connection) -> {
			};
		}

		/** {@code 200} headers announcing a 100-byte body, then nothing. */
		static Behaviour headersThenSilence() {
			return (out, connection) -> {
				out.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Type: text/plain\r\n\r\n"
					.getBytes(StandardCharsets.US_ASCII));
				out.flush();
			};
		}

	}

}
