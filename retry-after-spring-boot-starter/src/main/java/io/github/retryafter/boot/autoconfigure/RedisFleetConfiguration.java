package io.github.retryafter.boot.autoconfigure;

import java.util.UUID;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.StringUtils;

import io.github.retryafter.boot.fleet.FleetThreads;
import io.github.retryafter.boot.fleet.FleetThreadsRuntimeHints;
import io.github.retryafter.boot.fleet.redis.RedisFleet;
import io.github.retryafter.boot.fleet.redis.RedisFleetSettings;
import io.github.retryafter.boot.fleet.redis.RedisFleetStore;
import io.github.retryafter.fleet.FleetStore;

/**
 * The fleet on Redis, when {@code retry.after.fleet.store=redis} and Spring Data Redis with Lettuce is present: a
 * {@link RedisFleetStore} (the store the core's fleet budget and shared cooldown run on) over one {@link RedisFleet},
 * which uses the application's {@link RedisConnectionFactory} (Spring Boot's {@code spring.data.redis.*}), which must
 * be Lettuce's. Imported by {@link RetryAfterFleetAutoConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "retry.after.fleet.store", havingValue = "redis")
@ConditionalOnClass({ LettuceConnectionFactory.class, io.lettuce.core.RedisClient.class })
@EnableConfigurationProperties(RetryAfterFleetProperties.class)
@ImportRuntimeHints(FleetThreadsRuntimeHints.class)
class RedisFleetConfiguration {

	static final String DEFAULT_KEY_PREFIX = "retry-after";

	@Bean
	@ConditionalOnMissingBean
	RedisFleet retryAfterRedisFleet(RetryAfterFleetProperties properties, RedisConnectionFactory factory,
			Environment environment) {
		// a direct dependency, so that the fleet is closed (and flushed) before the connection factory
		if (!(factory instanceof LettuceConnectionFactory lettuce)) {
			throw new IllegalStateException("retry.after.fleet.store=redis needs Spring Data Redis with Lettuce "
					+ "(spring-boot-starter-data-redis), but the RedisConnectionFactory is a "
					+ factory.getClass().getName());
		}
		String prefix = properties.getKeyPrefix();
		if (!StringUtils.hasText(prefix)) {
			prefix = environment.getProperty("spring.application.name", DEFAULT_KEY_PREFIX);
		}
		RedisFleetSettings settings = new RedisFleetSettings(prefix, properties.getCommandTimeout(),
				properties.getFlushInterval(), properties.getProbeInterval(), properties.getKeyTtl(),
				properties.getRejoinProbes());
		// the shared native connection: opened on the fleet's thread, never on a request's
		return new RedisFleet(() -> ((LettuceConnection) lettuce.getConnection()).getNativeConnection(), settings,
				UUID.randomUUID().toString(), FleetThreads.mayBlock(RedisFleetConfiguration.class.getClassLoader()));
	}

	/**
	 * Closes the fleet when the context starts closing: before the connection factory stops (it is a lifecycle bean,
	 * stopped before any bean is destroyed), so that the last deposits are flushed.
	 */
	@Bean
	ApplicationListener<ContextClosedEvent> retryAfterFleetShutdown(ObjectProvider<RedisFleet> fleet,
			ObjectProvider<RedisFleetStore> store) {
		return (event) -> {
			store.ifAvailable(RedisFleetStore::close);
			fleet.ifAvailable(RedisFleet::close);
		};
	}

	/**
	 * The store, subscribed to the fleet's cooldown announcements on a pub/sub connection of its own, opened from the
	 * application's Lettuce client (its URI, credentials and TLS) off the request threads and the fleet's thread. A
	 * client that cannot open one (a static master/replica setup) leaves the store on the poll every flush interval.
	 */
	@Bean
	@ConditionalOnMissingBean(FleetStore.class)
	RedisFleetStore retryAfterRedisFleetStore(RedisFleet fleet, RedisConnectionFactory factory) {
		return new RedisFleetStore(fleet, () -> subscriber((LettuceConnectionFactory) factory));
	}

	private static StatefulRedisPubSubConnection<byte[], byte[]> subscriber(LettuceConnectionFactory factory) {
		AbstractRedisClient client = factory.getRequiredNativeClient();
		if (client instanceof RedisClient redis) {
			return redis.connectPubSub(ByteArrayCodec.INSTANCE);
		}
		if (client instanceof RedisClusterClient cluster) {
			return cluster.connectPubSub(ByteArrayCodec.INSTANCE);
		}
		throw new IllegalStateException("no pub/sub connection from a " + client.getClass().getName());
	}

}
