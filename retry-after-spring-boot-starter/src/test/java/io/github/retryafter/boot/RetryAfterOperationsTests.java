package io.github.retryafter.boot;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.retryafter.Scope;
import io.github.retryafter.boot.RetryAfterOperations.Prepared;
import io.github.retryafter.budget.BudgetSettings;
import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * How a request becomes an operation: which provider and whose state it uses, which idempotency key it carries or
 * gets, whether its body can be replayed, and when it is sent once without retries. Plain requests to one origin
 * share what they prepare alike; the per-host cache behind that stays bounded and never lets one request's choice
 * of provider decide another's.
 */
class RetryAfterOperationsTests {

	private static final int MAX_REPLAY = 1024;

	private final RetryAfterOperations operations = new RetryAfterOperations(
			providers(provider("default", false), provider("payments", true, "api.pay.example"),
					provider("search", false, "search.example")),
			"instance-1");

	@Test
	void aRequestUsesTheProviderItsHostPicksAndItsOriginsState() {
		Prepared pay = prepare("POST", "https://api.pay.example/charges");
		Prepared other = prepare("GET", "https://elsewhere.example:8443/items");

		assertThat(pay.provider().name()).isEqualTo("payments");
		assertThat(pay.spec().scope()).as("a configured provider shares one state").isEqualTo(Scope.provider("payments"));
		assertThat(other.provider().name()).isEqualTo("default");
		assertThat(other.spec().scope()).as("default keeps each origin's state apart")
			.isEqualTo(Scope.origin("default", "https://elsewhere.example:8443"));
		assertThat(other.spec().host()).contains("elsewhere.example");
	}

	@Test
	void aHostSpelledInUpperCaseIsTheSameOrigin() {
		Prepared lower = prepare("GET", "https://elsewhere.example/a");
		Prepared upper = prepare("get", "HTTPS://ElseWhere.EXAMPLE:443/b");

		assertThat(upper.spec().scope()).isEqualTo(lower.spec().scope());
		assertThat(upper.spec().host()).contains("elsewhere.example");
		assertThat(upper.spec().method()).isEqualTo("GET");
		assertThat(prepare("GET", "https://API.Pay.Example/").provider().name()).isEqualTo("payments");
	}

	@Test
	void plainRequestsToOneOriginShareWhatTheyPrepare() {
		Prepared first = prepare("GET", "https://elsewhere.example/a");
		Prepared second = prepare("GET", "https://elsewhere.example/b");
		Prepared otherPort = prepare("GET", "https://elsewhere.example:8443/a");
		Prepared otherMethod = prepare("DELETE", "https://elsewhere.example/a");

		assertThat(second).isSameAs(first);
		assertThat(second.headerToAdd()).isEmpty();
		assertThat(otherPort.spec().scope()).isNotEqualTo(first.spec().scope());
		assertThat(otherMethod.spec().method()).isEqualTo("DELETE");
		assertThat(otherMethod.spec().scope()).isEqualTo(first.spec().scope());
	}

	@Test
	void aProviderNamedByOneRequestIsNotTheHostsForTheNext() {
		Prepared named = prepare("GET", "https://api.pay.example/", Map.of(RetryAfterAttributes.PROVIDER, "search"));
		Prepared plain = prepare("GET", "https://api.pay.example/");
		Prepared namedAgain = prepare("GET", "https://api.pay.example/",
				Map.of(RetryAfterAttributes.PROVIDER, "search"));

		assertThat(named.provider().name()).isEqualTo("search");
		assertThat(named.spec().scope()).isEqualTo(Scope.provider("search"));
		assertThat(plain.provider().name()).isEqualTo("payments");
		assertThat(plain.spec().scope()).isEqualTo(Scope.provider("payments"));
		assertThat(namedAgain.provider().name()).isEqualTo("search");
	}

	@Test
	void anUnknownProviderNameIsRefusedBeforeAnythingIsSent() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> prepare("GET", "https://api.pay.example/",
					Map.of(RetryAfterAttributes.PROVIDER, "billing")))
			.withMessageContaining("'billing'");
	}

	@Test
	void anUnknownProviderNameSaysWhichConfiguredOneIsNearest() {
		Map<String, Object> attributes = new HashMap<>();
		RetryAfterAttributes.provider("paymnts").accept(attributes);
		assertThatIllegalArgumentException().isThrownBy(() -> prepare("GET", "https://api.pay.example/", attributes))
			.withMessageContaining("'paymnts'")
			.withMessageContaining("did you mean 'payments'?")
			.withMessageContaining("[default, payments, search]");
	}

	@Test
	void aPostGetsAKeyToAddOnlyWhereKeysAreOn() {
		Prepared keyed = prepare("POST", "https://api.pay.example/charges");
		Prepared unkeyed = prepare("POST", "https://elsewhere.example/charges");
		Prepared get = prepare("GET", "https://api.pay.example/charges");

		assertThat(keyed.headerToAdd()).hasValueSatisfying((header) -> {
			assertThat(header.getKey()).isEqualTo("Idempotency-Key");
			assertThat(header.getValue()).hasSize(36);
			assertThat(keyed.spec().idempotencyKey()).contains(header.getValue());
		});
		assertThat(prepare("POST", "https://api.pay.example/charges").spec().idempotencyKey())
			.as("each operation its own key")
			.isNotEqualTo(keyed.spec().idempotencyKey());
		assertThat(unkeyed.headerToAdd()).isEmpty();
		assertThat(unkeyed.spec().idempotencyKey()).isEmpty();
		assertThat(get.headerToAdd()).isEmpty();
	}

	@Test
	void aKeyTheRequestCarriesIsKeptAndAskedForInLowerCase() {
		List<String> asked = new ArrayList<>();
		Map<String, String> headers = Map.of("idempotency-key", "order-7");
		Prepared prepared = this.operations.prepare("POST", URI.create("https://api.pay.example/charges"), headers,
				(fields, name) -> {
					asked.add(name);
					return fields.get(name);
				}, Map.of(), 0);

		assertThat(asked).containsExactly("idempotency-key");
		assertThat(prepared.spec().idempotencyKey()).contains("order-7");
		assertThat(prepared.headerToAdd()).as("the request has it already").isEmpty();
	}

	@Test
	void aKeyGivenAsAnAttributeIsAddedToTheRequest() {
		Prepared prepared = prepare("PUT", "https://elsewhere.example/orders/7",
				Map.of(RetryAfterAttributes.IDEMPOTENCY_KEY, "order-7"));

		assertThat(prepared.spec().idempotencyKey()).contains("order-7");
		assertThat(prepared.headerToAdd()).hasValue(Map.entry("Idempotency-Key", "order-7"));
	}

	@Test
	void aBodyIsReplayableOnlyWithinTheLimitOrWhenRecordedAsSent() {
		assertThat(prepare("PUT", "https://elsewhere.example/", MAX_REPLAY).spec().replayable()).isTrue();
		assertThat(prepare("PUT", "https://elsewhere.example/", MAX_REPLAY + 1).spec().replayable()).isFalse();
		assertThat(prepare("PUT", "https://elsewhere.example/", RetryAfterOperations.BODY_NOT_REPLAYABLE).spec()
			.replayable()).isFalse();
		assertThat(prepare("PUT", "https://elsewhere.example/", RetryAfterOperations.BODY_RECORDED_WHEN_SENT).spec()
			.replayable()).isTrue();
	}

	@Test
	void aDisabledRequestAndAnyRequestAfterCloseAreSentOnce() {
		Prepared plain = prepare("GET", "https://elsewhere.example/");
		Prepared disabled = prepare("GET", "https://elsewhere.example/", Map.of(RetryAfterAttributes.DISABLED, true));

		assertThat(plain.disabled()).isFalse();
		assertThat(disabled.disabled()).isTrue();
		this.operations.close();
		assertThat(prepare("GET", "https://elsewhere.example/").disabled())
			.as("the request cached before close is not handed out after it")
			.isTrue();
	}

	@Test
	void aHostAUriCannotParseIsReadFromItsAuthority() {
		Prepared prepared = prepare("GET", "http://my_service.internal:8080/items");

		assertThat(prepared.spec().host()).contains("my_service.internal");
		assertThat(prepared.spec().scope()).isEqualTo(Scope.origin("default", "http://my_service.internal:8080"));
		assertThat(prepare("GET", "http://my_service.internal:8080/other")).isSameAs(prepared);
	}

	@Test
	void aUriWithoutAHostUsesDefaultAndIsNotCached() {
		Prepared prepared = prepare("GET", "/relative/path");

		assertThat(prepared.provider().name()).isEqualTo("default");
		assertThat(prepared.spec().host()).isEmpty();
		assertThat(this.operations.cachedHosts()).isZero();
	}

	@Test
	void theHostCacheStaysWithinItsBoundWhateverHostsComeIn() {
		for (int i = 0; i < 3 * RetryAfterOperations.MAX_CACHED_HOSTS; i++) {
			prepare("GET", "https://host-" + i + ".example/");
			assertThat(this.operations.cachedHosts()).isLessThanOrEqualTo(RetryAfterOperations.MAX_CACHED_HOSTS);
		}
		Prepared again = prepare("GET", "https://host-0.example/");
		assertThat(again.spec().scope()).isEqualTo(Scope.origin("default", "https://host-0.example:443"));
		assertThat(prepare("GET", "https://api.pay.example/").provider().name()).isEqualTo("payments");
	}

	private Prepared prepare(String method, String uri) {
		return prepare(method, uri, Map.of());
	}

	private Prepared prepare(String method, String uri, long bodySize) {
		return this.operations.prepare(method, URI.create(uri), (name) -> null, new HashMap<>(), bodySize);
	}

	private Prepared prepare(String method, String uri, Map<String, Object> attributes) {
		return this.operations.prepare(method, URI.create(uri), (name) -> null, new HashMap<>(attributes), 0);
	}

	private static RetryAfterProviders providers(ProviderSettings... settings) {
		return new RetryAfterProviders(List.of(settings),
				(each) -> RetryEngine.builder().policy(each.policy()).build());
	}

	private static ProviderSettings provider(String name, boolean keys, String... hosts) {
		return new ProviderSettings(name, List.of(hosts), RetryPolicy.DEFAULTS, BudgetSettings.PROVIDER_DEFAULTS, keys,
				MAX_REPLAY);
	}

}
