package io.github.retryafter.okhttp.bench;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Connection;
import okhttp3.Interceptor;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Timeout;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.okhttp.RetryAfterInterceptor;

/**
 * What {@link RetryAfterInterceptor} adds to a call that succeeds at once (issue 29: at most 0.3 µs and 300 B): the
 * same stub chain, whose {@code proceed} answers a prepared {@code 200}, called directly ({@link #withoutInterceptor})
 * and through the interceptor on a default engine ({@link #withInterceptor}). Run both in one JMH run, with
 * {@code -prof gc}, on a quiet machine, and compare.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class OkHttpOverheadBenchmark {

	private final Request request = new Request.Builder().url("http://api.example.com/items/42").build();

	private final Response ok = new Response.Builder().request(this.request)
		.protocol(Protocol.HTTP_1_1)
		.code(200)
		.message("OK")
		.body(ResponseBody.create(new byte[0], null))
		.build();

	private final StubCall call = new StubCall(this.request);

	private final Interceptor.Chain chain = new StubChain(this.request, this.call, this.ok);

	private final RetryAfterInterceptor interceptor = RetryAfterInterceptor.of(RetryEngine.builder().build());

	@Benchmark
	public Response withoutInterceptor() throws IOException {
		return this.chain.proceed(this.request);
	}

	@Benchmark
	public Response withInterceptor() throws IOException {
		return this.interceptor.intercept(this.chain);
	}

	/** A chain that answers every request with one prepared response, and keeps its timeouts as OkHttp's does. */
	private record StubChain(Request request, Call call, Response response, int connectTimeoutMillis,
			int readTimeoutMillis, int writeTimeoutMillis) implements Interceptor.Chain {

		StubChain(Request request, Call call, Response response) {
			this(request, call, response, 10_000, 10_000, 10_000);
		}

		@Override
		public Response proceed(Request request) {
			return this.response;
		}

		@Override
		public Connection connection() {
			return null;
		}

		@Override
		public Interceptor.Chain withConnectTimeout(int timeout, TimeUnit unit) {
			return new StubChain(this.request, this.call, this.response, (int) unit.toMillis(timeout),
					this.readTimeoutMillis, this.writeTimeoutMillis);
		}

		@Override
		public Interceptor.Chain withReadTimeout(int timeout, TimeUnit unit) {
			return new StubChain(this.request, this.call, this.response, this.connectTimeoutMillis,
					(int) unit.toMillis(timeout), this.writeTimeoutMillis);
		}

		@Override
		public Interceptor.Chain withWriteTimeout(int timeout, TimeUnit unit) {
			return new StubChain(this.request, this.call, this.response, this.connectTimeoutMillis,
					this.readTimeoutMillis, (int) unit.toMillis(timeout));
		}

	}

	/** A call that is never cancelled. */
	private record StubCall(Request request) implements Call {

		@Override
		public Response execute() {
			throw new UnsupportedOperationException();
		}

		@Override
		public void enqueue(Callback responseCallback) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void cancel() {
		}

		@Override
		public boolean isExecuted() {
			return true;
		}

		@Override
		public boolean isCanceled() {
			return false;
		}

		@Override
		public Timeout timeout() {
			return Timeout.NONE;
		}

		@Override
		public Call clone() {
			return this;
		}

	}

}
