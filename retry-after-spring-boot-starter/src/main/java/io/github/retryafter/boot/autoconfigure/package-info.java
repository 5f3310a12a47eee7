/**
 * Auto-configuration for retry-after: properties under {@code retry.after}, the engines, and their wiring into
 * Spring Boot's WebClient and RestClient builders.
 */
package io.github.retryafter.boot.autoconfigure;
