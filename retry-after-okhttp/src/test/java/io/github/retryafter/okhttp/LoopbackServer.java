package io.github.retryafter.okhttp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import okhttp3.HttpUrl;

/**
 * An HTTP/1.1 server on a raw {@link ServerSocket} on 127.0.0.1 (the JDK's {@code HttpServer} overwrites the
 * {@code Date} field, which a skewed-server test must set): each request gets the next {@link Answer} of its script,
 * the last one repeating. It records every request as it arrived (method, fields, body, connection, the test's virtual
 * time) and when the client closed each connection (real time). Thread-safe; a thread per connection plus a writer.
 */
final class LoopbackServer implements AutoCloseable {

	private final ServerSocket server;

	private final Supplier<Duration> virtualTime;

	private final ExecutorService threads = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "loopback-server");
		thread.setDaemon(true);
		return thread;
	});

	// this test's server only: a handful of requests and connections per test
	private final List<Seen> seen = new CopyOnWriteArrayList<>();

	private final List<Connection> connections = new CopyOnWriteArrayList<>();

	private final ConcurrentLinkedQueue<Answer> script = new ConcurrentLinkedQueue<>();

	private volatile Answer last = Answer.status(200, "", "ok");

	private final AtomicInteger connectionIds = new AtomicInteger();

	LoopbackServer(Supplier<Duration> virtualTime) throws IOException {
		this.virtualTime = virtualTime;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		this.threads.execute(this::accept);
	}

	LoopbackServer script(Answer... answers) {
		this.script.addAll(List.of(answers));
		return this;
	}

	HttpUrl url(String path) {
		return HttpUrl.get("http://127.0.0.1:" + this.server.getLocalPort() + path);
	}

	List<Seen> seen() {
		return List.copyOf(this.seen);
	}

	/** When the client closed connection {@code id} (a {@code nanoTime}), waiting up to {@code within}; 0 if open. */
	long closedAt(int id, Duration within) throws InterruptedException {
		long until = System.nanoTime() + within.toNanos();
		while (System.nanoTime() - until < 0) {
			for (Connection each : this.connections) {
				if (each.id == id && each.closedAt != 0) {
					return each.closedAt;
				}
			}
			Thread.sleep(5);
		}
		return 0;
	}

	int bodyBytesWritten(int id) {
		return this.connections.stream().filter((each) -> each.id == id).findFirst().orElseThrow().written.get();
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Connection connection = new Connection(this.connectionIds.incrementAndGet(), this.server.accept());
				this.connections.add(connection);
				this.threads.execute(() -> serve(connection));
			}
			catch (IOException ex) {
				return;
			}
		}
	}

	/** Reads requests until the client closes; answers are written by the connection's writer. */
	private void serve(Connection connection) {
		ExecutorService writer = Executors.newSingleThreadExecutor((task) -> {
			Thread thread = new Thread(task, "loopback-writer");
			thread.setDaemon(true);
			return thread;
		});
		try (Socket socket = connection.socket) {
			InputStream in = socket.getInputStream();
			while (true) {
				Seen request = read(in, connection.id);
				if (request == null) {
					break;
				}
				this.seen.add(request);
				Answer answer = next();
				writer.execute(() -> {
					try {
						answer.write(socket, connection);
					}
					catch (IOException | InterruptedException ex) {
						// the client went away, or the server is closing
					}
				});
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

	private Seen read(InputStream in, int connection) throws IOException {
		String head = readHead(in);
		if (head == null) {
			return null;
		}
		String[] lines = head.split("\r\n");
		Map<String, String> fields = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
		for (int i = 1; i < lines.length; i++) {
			int colon = lines[i].indexOf(':');
			if (colon > 0) {
				fields.put(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim());
			}
		}
		int length = Integer.parseInt(fields.getOrDefault("Content-Length", "0"));
		byte[] body = in.readNBytes(length);
		return new Seen(this.seen.size() + 1, connection, this.virtualTime.get(), lines[0].split(" ")[0], fields,
				new String(body, StandardCharsets.UTF_8));
	}

	private synchronized Answer next() {
		Answer answer = this.script.poll();
		if (answer != null) {
			this.last = answer;
			return answer;
		}
		return this.last;
	}

	private static String readHead(InputStream in) throws IOException {
		ByteArrayOutputStream head = new ByteArrayOutputStream();
		byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
		int matched = 0;
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
	public void close() throws IOException {
		this.server.close();
		for (Connection connection : this.connections) {
			connection.socket.close();
		}
		this.threads.shutdownNow();
	}

	/**
	 * One request as the server saw it.
	 *
	 * @param number its number, from 1
	 * @param connection the connection it came on, from 1
	 * @param arrivedAt the test's virtual time when it arrived
	 * @param method its method
	 * @param fields its header fields, names case-insensitive
	 * @param body its body as text
	 */
	record Seen(int number, int connection, Duration arrivedAt, String method, Map<String, String> fields,
			String body) {

		String field(String name) {
			return this.fields.get(name);
		}

	}

	/** One connection: its socket, the body bytes written on it, and when the client closed it. */
	static final class Connection {

		private final int id;

		private final Socket socket;

		private final AtomicInteger written = new AtomicInteger();

		private volatile long closedAt;

		Connection(int id, Socket socket) {
			this.id = id;
			this.socket = socket;
		}

	}

	/** What the server does with one request; runs on the connection's writer. */
	@FunctionalInterface
	interface Answer {

		void write(Socket socket, Connection connection) throws IOException, InterruptedException;

		/** A response with {@code fields} (CRLF-separated lines, or empty) and a body of known length. */
		static Answer status(int status, String fields, String body) {
			return (socket, connection) -> {
				byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
				OutputStream out = socket.getOutputStream();
				out.write(head(status, fields, bytes.length));
				out.write(bytes);
				out.flush();
			};
		}

		/** A response whose body of {@code length} bytes trickles one byte per {@code every}. */
		static Answer trickling(int status, String fields, int length, Duration every) {
			return (socket, connection) -> {
				OutputStream out = socket.getOutputStream();
				out.write(head(status, fields, length));
				out.flush();
				for (int i = 0; i < length; i++) {
					TimeUnit.NANOSECONDS.sleep(every.toNanos());
					out.write('x');
					out.flush();
					connection.written.incrementAndGet();
				}
			};
		}

		/** Reads the request and never answers. */
		static Answer silent() {
			return (socket, connection) -> {
			};
		}

		/** Reads the request and closes the connection without a response: the response is lost. */
		static Answer hangUp() {
			return (socket, connection) -> socket.close();
		}

		private static byte[] head(int status, String fields, int length) {
			String extra = fields.isEmpty() ? "" : fields + "\r\n";
			return ("HTTP/1.1 " + status + " " + ((status == 200) ? "OK" : "Failed").toUpperCase(Locale.ROOT)
					+ "\r\n" + extra + "Content-Length: " + length + "\r\nContent-Type: text/plain\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII);
		}

	}

}
