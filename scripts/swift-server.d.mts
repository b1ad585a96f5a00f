export interface SwiftServer {
  /** The S3 endpoint, http://127.0.0.1:PORT (path-style addressing). */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop: () => void;
}
export declare const SWIFT_ACCESS_KEY_ID: string;
export declare const SWIFT_SECRET_ACCESS_KEY: string;
/** Where scripts/install-swift.sh unpacked Swift: $LOYALTY_SWIFT_HOME, else ~/.cache/loyalty-sync/swift. */
export declare function swiftHome(): string;
/** Starts the four Swift servers on free loopback ports; resolves once the proxy answers /healthcheck. */
export declare function startSwift(): Promise<SwiftServer>;
/** A TCP port free on 127.0.0.1 at the time of asking. */
export declare function freePort(): Promise<number>;
