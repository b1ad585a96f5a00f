import type { S3Client } from '@aws-sdk/client-s3';

/**
 * Answers that say something of the object itself, whatever the request's signing time: no such key,
 * a precondition that failed, a conflicting write in flight, not modified.
 */
const DEFINITE_STATUSES = new Set([304, 404, 409, 412]);

interface SdkErrorMetadata {
  httpStatusCode?: number;
  clockSkewCorrected?: boolean;
}

/**
 * The SDK marks every error answer of a store whose Date is 4 minutes or more off this machine's clock as
 * "clock skew corrected", and retries it: the offset it computes moves by the milliseconds of each answer,
 * so it counts as corrected again every time, and every 404 or 412 is sent up to MAX_ATTEMPTS times with
 * backoff. The state's log is read by asking for entries that do not exist yet, so a skewed store clock
 * would cost each run seconds a lookup and use up the retry budget that real faults need. The correction
 * itself stays (the next request is signed with it); only answers that no signing time can change are
 * not retried for it. A 400 or 403 (RequestTimeTooSkewed, a signature out of date) still is.
 */
export function answersNotRetriedForClockSkew(s3: S3Client): void {
  const middleware = <Args, Result>(next: (args: Args) => Promise<Result>) => async (args: Args): Promise<Result> => {
    try {
      return await next(args);
    } catch (error) {
      const metadata = (error as { $metadata?: SdkErrorMetadata }).$metadata;
      if (metadata?.clockSkewCorrected === true && metadata.httpStatusCode !== undefined && DEFINITE_STATUSES.has(metadata.httpStatusCode)) {
        metadata.clockSkewCorrected = false;
      }
      throw error;
    }
  };
  // Inside the retry loop, around the signer whose error handler sets the mark.
  s3.middlewareStack.addRelativeTo(middleware, { relation: 'after', toMiddleware: 'retryMiddleware', name: 'loyaltyAnswersNotRetriedForClockSkew' });
}
