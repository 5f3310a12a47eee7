package io.github.retryafter.boot.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import static org.awaitility.Awaitility.await;

/**
 * A real {@code redis-server} for a test class: started on a free loopback port with persistence off (no RDB, no
 * AOF), as a child process of the test JVM, and stopped by its PID. Register it as a static
 * {@code @RegisterExtension} field.
 * <p>
 * When the {@code redis-server} binary is not on the {@code PATH}, the tests of the class are skipped with a message
 * that says so on a developer's machine, and fail when the environment variable {@code CI} is {@code true} (so CI
 * cannot pass by testing nothing; {@code .ci/run} installs Debian's {@code redis-server}).
 */
public final class RedisServer implements BeforeAllCallback, AfterAllCallback {

	private static final String BINARY = "redis-server";

	private int port;

	private Path workDir;

	private volatile Process process;

	@Override
	public void beforeAll(ExtensionContext context) throws IOException {
		Optional<Path> binary = binary();
		if (binary.isEmpty()) {
			String message = "'" + BINARY + "' is not on the PATH: install Debian's redis-server (apt-get install -y "
					+ "redis-server) to run " + context.getDisplayName();
			if ("true".equals(System.getenv("CI"))) {
				Assertions.fail(message + "; CI=true, so this is a failure, not a skip");
			}
			Assumptions.abort(message);
		}
		this.port = freePort();
		this.workDir = Files.createTempDirectory("retry-after-redis-");
		start();
	}

	@Override
	public void afterAll(ExtensionContext context) throws IOException {
		stop();
		if (this.workDir != null) {
			try (var files = Files.list(this.workDir)) {
				for (Path file : files.toList()) {
					Files.deleteIfExists(file);
				}
			}
			Files.deleteIfExists(this.workDir);
		}
	}

	/** Returns the loopback port the server listens on (the same across a {@link #kill()} and {@link #start()}). */
	public int port() {
		return this.port;
	}

	/** Returns the PID of the running server. */
	public long pid() {
		return this.process.pid();
	}

	/** Returns whether the server process is alive. */
	public boolean isRunning() {
		Process running = this.process;
		return running != null && running.isAlive();
	}

	/**
	 * Starts a new, empty server on {@link #port()} and waits until it answers {@code PING}.
	 * @throws IOException if it cannot be started
	 */
	public void start() throws IOException {
		if (isRunning()) {
			throw new IllegalStateException("redis-server is already running with PID " + pid());
		}
		List<String> command = List.of(binary().orElseThrow().toString(), "--port", Integer.toString(this.port),
				"--bind", "127.0.0.1", "--daemonize", "no", "--save", "", "--appendonly", "no", "--dir",
				this.workDir.toString(), "--logfile", "", "--protected-mode", "no", "--enable-debug-command", "local");
		this.process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(this.workDir.resolve("redis.log").toFile())
			.start();
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(this::answersPing);
	}

	/**
	 * Kills the server abruptly (SIGKILL to its PID), as a crash would, and waits for the process to end.
	 */
	public void kill() {
		Process running = this.process;
		if (running != null) {
			ProcessHandle.of(running.pid()).ifPresent(ProcessHandle::destroyForcibly);
			waitFor(running);
		}
	}

	/**
	 * Stops the server (SIGTERM to its PID) and waits for the process to end.
	 */
	public void stop() {
		Process running = this.process;
		if (running != null && running.isAlive()) {
			ProcessHandle.of(running.pid()).ifPresent(ProcessHandle::destroy);
			waitFor(running);
		}
	}

	/**
	 * Sends one command over a plain socket and returns the raw reply (RESP), so a test can look at the keys without
	 * going through the code under test.
	 * @param args the command and its arguments
	 * @return the reply as text
	 * @throws IOException if the server does not answer
	 */
	public String command(String... args) throws IOException {
		StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
		for (String arg : args) {
			request.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg).append("\r\n");
		}
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port), 1000);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write(request.toString().getBytes(StandardCharsets.UTF_8));
			out.flush();
			socket.shutdownOutput();
			InputStream in = socket.getInputStream();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	private boolean answersPing() {
		try {
			return command("PING").startsWith("+PONG");
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static void waitFor(Process process) {
		try {
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("redis-server PID " + process.pid() + " did not stop within 10 s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static Optional<Path> binary() {
		String path = System.getenv("PATH");
		if (path == null) {
			return Optional.empty();
		}
		for (String dir : path.split(File.pathSeparator)) {
			Path candidate = Path.of(dir, BINARY);
			if (Files.isExecutable(candidate)) {
				return Optional.of(candidate);
			}
		}
		return Optional.empty();
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
