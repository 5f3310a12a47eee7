package io.github.retryafter.request;

import java.net.URI;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.github.retryafter.JitterMode;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.Scope;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The front half every transport shares, on its own: routing, keys, keyed jitter and the plain request's cache, as
 * the JDK adapter and the starter's adapters use them.
 */
class RequestPreparerTests {

	private static final HttpHeaders NO_HEADERS = HttpHeaders.of(Map.of(), (name, value) -> true);

	private final ProviderRoutes<ProviderRoute.Simple> routes = ProviderRoutes.of(
			ProviderRoute.of("default", engine(RetryPolicy.DEFAULTS)),
			ProviderRoute.of("payments", engine(RetryPolicy.DEFAULTS), "api.pay.example").withIdempotencyKeys(true),
			ProviderRoute.of("search", engine(RetryPolicy.DEFAULTS), "*.search.example"));

	private final RequestPreparer<ProviderRoute.Simple, PreparedRequest<ProviderRoute.Simple>> preparer =
			RequestPreparer.of(this.routes, "instance-1");

	@Test
	void aRequestGoesToTheRouteItsHostPicksWithThatRoutesScope() {
		PreparedRequest<ProviderRoute.Simple> pay = prepare("POST", "https://API.pay.example/charges");
		PreparedRequest<ProviderRoute.Simple> search = prepare("GET", "https://eu.search.example/q");
		PreparedRequest<ProviderRoute.Simple> other = prepare("GET", "https://elsewhere.example:8443/items");

		assertThat(pay.route().name()).isEqualTo("payments");
		assertThat(pay.spec().scope()).isEqualTo(Scope.provider("payments"));
		assertThat(search.route().name()).isEqualTo("search");
		assertThat(other.route().name()).isEqualTo("default");
		assertThat(other.spec().scope()).isEqualTo(Scope.origin("default", "https://elsewhere.example:8443"));
		assertThat(other.spec().host()).contains("elsewhere.example");
	}

	@Test
	void aPostOrPatchGetsAFreshKeyOnlyWhereItsRouteAddsKeys() {
		PreparedRequest<ProviderRoute.Simple> post = prepare("POST", "https://api.pay.example/charges");
		PreparedRequest<ProviderRoute.Simple> patch = prepare("patch", "https://api.pay.example/charges/1");
		PreparedRequest<ProviderRoute.Simple> put = prepare("PUT", "https://api.pay.example/charges/1");
		PreparedRequest<ProviderRoute.Simple> elsewhere = prepare("POST", "https://elsewhere.example/charges");

		assertThat(post.headerToAdd()).hasValueSatisfying((header) -> {
			assertThat(header.getKey()).isEqualTo("Idempotency-Key");
			assertThat(post.spec().idempotencyKey()).contains(header.getValue());
		});
		assertThat(patch.spec().idempotencyKey()).isPresent().isNotEqualTo(post.spec().idempotencyKey());
		assertThat(put.headerToAdd()).isEmpty();
		assertThat(elsewhere.headerToAdd()).isEmpty();
		assertThat(elsewhere.spec().idempotencyKey()).isEmpty();
	}

	@Test
	void theRequestsOwnKeyWinsAndIsNotAddedAgain() {
		List<String> asked = new ArrayList<>();
		HttpHeaders headers = HttpHeaders.of(Map.of("Idempotency-Key", List.of("order-7")), (name, value) -> true);
		PreparedRequest<ProviderRoute.Simple> prepared = this.preparer.prepare("POST",
				URI.create("https://api.pay.example/charges"), headers, (fields, name) -> {
					asked.add(name);
					return fields.firstValue(name).orElse(null);
				}, OperationOptions.NONE, 0);

		assertThat(asked).containsExactly("idempotency-key");
		assertThat(prepared.spec().idempotencyKey()).contains("order-7");
		assertThat(prepared.headerToAdd()).isEmpty();
	}

	@Test
	void optionsNameTheProviderGiveTheKeyAndTheDeadline() {
		PreparedRequest<ProviderRoute.Simple> prepared = this.preparer.prepare("PUT",
				URI.create("https://elsewhere.example/orders/7"), NO_HEADERS, RequestPreparerTests::first,
				OperationOptions.of(Optional.of("search"), Optional.of("order-7"), Optional.of(Duration.ofSeconds(3))),
				0);

		assertThat(prepared.route().name()).isEqualTo("search");
		assertThat(prepared.spec().idempotencyKey()).contains("order-7");
		assertThat(prepared.headerToAdd()).hasValue(Map.entry("Idempotency-Key", "order-7"));
		assertThat(prepared.spec().deadline()).contains(Duration.ofSeconds(3));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.preparer.prepare("GET", URI.create("https://elsewhere.example/"), NO_HEADERS,
					RequestPreparerTests::first, OperationOptions.of(Optional.of("billing"), Optional.empty(),
							Optional.empty()), 0))
			.withMessageContaining("'billing'");
	}

	@Test
	void plainRequestsToOneOriginShareWhatWasPrepared() {
		PreparedRequest<ProviderRoute.Simple> first = prepare("GET", "https://elsewhere.example/a");

		assertThat(prepare("GET", "https://elsewhere.example/b")).isSameAs(first);
		assertThat(prepare("DELETE", "https://elsewhere.example/a").spec().method()).isEqualTo("DELETE");
		assertThat(this.preparer.cachedHosts()).isEqualTo(1);
	}

	@Test
	void aHostNoNamedRouteListsIsToldWhenItsRouteIsLookedUpNotOnEveryRequest() {
		List<String> unmatched = new ArrayList<>();
		RequestPreparer<ProviderRoute.Simple, PreparedRequest<ProviderRoute.Simple>> told = new RequestPreparer<>(
				this.routes, "instance-1", PreparedRequest::new, unmatched::add);

		for (String uri : List.of("https://api.pay.example/c", "https://eu.search.example/q",
				"https://elsewhere.example/a", "https://elsewhere.example/b", "https://elsewhere.example:8443/c")) {
			told.prepare("GET", URI.create(uri), NO_HEADERS, RequestPreparerTests::first, OperationOptions.NONE, 0);
		}
		// a request that names its provider, default included, did not fall to it
		told.prepare("GET", URI.create("https://named.example/"), NO_HEADERS, RequestPreparerTests::first,
				OperationOptions.of(Optional.of("default"), Optional.empty(), Optional.empty()), 0);

		// the second request to the same spelling hit the cache; another port is another lookup
		assertThat(unmatched).containsExactly("elsewhere.example", "elsewhere.example");
	}

	@Test
	void aUrlGivenInPartsIsRoutedAndScopedAsItsUriIs() {
		PreparedRequest<ProviderRoute.Simple> pay = parts("POST", "HTTPS", "API.pay.example", 443);
		PreparedRequest<ProviderRoute.Simple> search = parts("GET", "https", "eu.search.example", 443);
		PreparedRequest<ProviderRoute.Simple> other = parts("GET", "https", "elsewhere.example", 8443);
		PreparedRequest<ProviderRoute.Simple> ipv6 = parts("GET", "http", "::1", 8080);

		assertThat(pay.route().name()).isEqualTo("payments");
		assertThat(pay.spec().idempotencyKey()).as("a POST the route keys").isPresent();
		assertThat(search.route().name()).isEqualTo("search");
		assertThat(other.spec().scope()).isEqualTo(prepare("GET", "https://elsewhere.example:8443/items").spec().scope())
			.isEqualTo(Scope.origin("default", "https://elsewhere.example:8443"));
		assertThat(ipv6.spec().scope()).as("an IPv6 origin as its URI names it")
			.isEqualTo(prepare("GET", "http://[::1]:8080/").spec().scope())
			.isEqualTo(Scope.origin("default", "http://[::1]:8080"));
		assertThat(ipv6.spec().host()).contains("[::1]");
		assertThat(parts("GET", "https", "elsewhere.example", 8443)).as("a plain request to a known origin")
			.isSameAs(other);
		assertThat(parts("GET", "http", "elsewhere.example", 8443).spec().scope()).as("another scheme, another origin")
			.isEqualTo(Scope.origin("default", "http://elsewhere.example:8443"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.preparer.prepare("GET", "https", "elsewhere.example", 443, NO_HEADERS,
					RequestPreparerTests::first, OperationOptions.of(Optional.of("billing"), Optional.empty(),
							Optional.empty()), 0))
			.withMessageContaining("'billing'");
	}

	@Test
	void aBodyIsReplayableWithinItsRoutesBoundOrWhenRecordedAsSent() {
		long bound = ProviderRoute.DEFAULT_MAX_REPLAY_BODY_BYTES;
		assertThat(prepare("PUT", "https://elsewhere.example/", bound).spec().replayable()).isTrue();
		assertThat(prepare("PUT", "https://elsewhere.example/", bound + 1).spec().replayable()).isFalse();
		assertThat(prepare("PUT", "https://elsewhere.example/", RequestPreparer.BODY_NOT_REPLAYABLE).spec()
			.replayable()).isFalse();
		assertThat(prepare("PUT", "https://elsewhere.example/", RequestPreparer.BODY_RECORDED_WHEN_SENT).spec()
			.replayable()).isTrue();
	}

	@Test
	void keyedJitterIsKeyedByTheInstanceAndTheOperation() {
		RetryPolicy keyed = RetryPolicy.builder()
			.planner(PlannerOptions.builder().jitter(JitterMode.KEYED).build())
			.build();
		RequestPreparer<ProviderRoute.Simple, PreparedRequest<ProviderRoute.Simple>> preparer = RequestPreparer
			.of(ProviderRoutes.of(ProviderRoute.of("default", engine(keyed))), "instance-1");
		URI uri = URI.create("https://elsewhere.example/");

		PreparedRequest<ProviderRoute.Simple> first = preparer.prepare("GET", uri, NO_HEADERS,
				RequestPreparerTests::first, OperationOptions.NONE, 0);
		PreparedRequest<ProviderRoute.Simple> second = preparer.prepare("GET", uri, NO_HEADERS,
				RequestPreparerTests::first, OperationOptions.NONE, 0);
		PreparedRequest<ProviderRoute.Simple> withKey = preparer.prepare("PUT", uri, NO_HEADERS,
				RequestPreparerTests::first, OperationOptions.of(Optional.empty(), Optional.of("k"), Optional.empty()),
				0);

		assertThat(first.spec().jitterKey()).contains("instance-1/1");
		assertThat(second.spec().jitterKey()).contains("instance-1/2");
		assertThat(withKey.spec().jitterKey()).contains("instance-1/k");
	}

	@Test
	void aHostListedUnderTwoRoutesOrNoDefaultIsRefused() {
		RetryEngine engine = engine(RetryPolicy.DEFAULTS);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ProviderRoutes.of(ProviderRoute.of("default", engine),
					ProviderRoute.of("a", engine, "x.example"), ProviderRoute.of("b", engine, "X.example")))
			.withMessageContaining("'X.example' is listed under two providers, 'a' and 'b'");
		assertThatIllegalArgumentException().isThrownBy(() -> ProviderRoutes.of(ProviderRoute.of("a", engine)))
			.withMessageContaining("no 'default' provider");
	}

	private PreparedRequest<ProviderRoute.Simple> prepare(String method, String uri) {
		return prepare(method, uri, 0);
	}

	private PreparedRequest<ProviderRoute.Simple> prepare(String method, String uri, long bodySize) {
		return this.preparer.prepare(method, URI.create(uri), NO_HEADERS, RequestPreparerTests::first,
				OperationOptions.NONE, bodySize);
	}

	private PreparedRequest<ProviderRoute.Simple> parts(String method, String scheme, String host, int port) {
		return this.preparer.prepare(method, scheme, host, port, NO_HEADERS, RequestPreparerTests::first,
				OperationOptions.NONE, 0);
	}

	private static String first(HttpHeaders headers, String name) {
		return headers.firstValue(name).orElse(null);
	}

	private static RetryEngine engine(RetryPolicy policy) {
		return RetryEngine.builder().policy(policy).build();
	}

}
