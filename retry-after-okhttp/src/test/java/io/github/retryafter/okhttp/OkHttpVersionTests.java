package io.github.retryafter.okhttp;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Which OkHttp the suite runs on: the build runs it twice (OkHttp 4, the version compiled against, and OkHttp 5 on a
 * swapped classpath) and says which one each run must find, so a classpath that silently kept OkHttp 4 fails here.
 */
class OkHttpVersionTests {

	@Test
	void theSuiteRunsOnTheOkHttpItsBuildExecutionNames() throws ReflectiveOperationException {
		String expected = System.getProperty("retryafter.okhttp.expected");
		assumeTrue(expected != null, "run by Maven, which names the OkHttp of each execution");
		// read at run time: OkHttp 4 compiles VERSION as a constant, which javac would have copied in
		Object version = Class.forName("okhttp3.OkHttp").getField("VERSION").get(null);
		assertThat(version).isEqualTo(expected);
	}

}
