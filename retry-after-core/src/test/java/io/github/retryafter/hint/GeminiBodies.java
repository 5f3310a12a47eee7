package io.github.retryafter.hint;

/**
 * Gemini's error bodies, as the API sends them, for tests of the body's {@code RetryInfo}.
 */
public final class GeminiBodies {

	private GeminiBodies() {
	}

	/** Gemini's refusal, as the API sends it: a QuotaFailure naming the quota, a Help link, and the RetryInfo. */
	public static String refusal(String retryDelay) {
		return """
				{
				  "error": {
				    "code": 429,
				    "message": "You exceeded your current quota, please check your plan and billing details.",
				    "status": "RESOURCE_EXHAUSTED",
				    "details": [
				      {
				        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
				        "violations": [
				          {
				            "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
				            "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
				            "quotaDimensions": {"location": "global", "model": "gemini-2.0-flash"},
				            "quotaValue": "15"
				          }
				        ]
				      },
				      {
				        "@type": "type.googleapis.com/google.rpc.Help",
				        "links": [{"description": "Learn more", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]
				      },
				      {
				        "@type": "type.googleapis.com/google.rpc.RetryInfo",
				        "retryDelay": "%s"
				      }
				    ]
				  }
				}
				""".formatted(retryDelay);
	}

}
