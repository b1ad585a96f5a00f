import type { IncomingMessage } from 'node:http';

export interface ErrorEnvelope {
  error: { message: string; code?: string; details?: Record<string, string> };
}

/** The spec allows a bare string `error` on get-order and add-points. */
export interface PlainError {
  error: string;
}

export interface Reply {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** The request changed state; only such replies are eligible for the apply-then-drop fault. */
  applied?: boolean;
}

/** Thrown by handlers for every error answer, so a handler reads as its happy path. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorEnvelope | PlainError,
    readonly headers?: Record<string, string>,
  ) {
    super(typeof body.error === 'string' ? body.error : body.error.message);
  }
}

export function envelopeError(status: number, message: string, code?: string, details?: Record<string, string>): HttpError {
  const error: ErrorEnvelope['error'] = { message };
  if (code !== undefined) error.code = code;
  if (details !== undefined) error.details = details;
  return new HttpError(status, { error });
}

export function json(status: number, value: unknown): Reply {
  return { status, body: JSON.stringify(value) };
}

export function errorReply(error: HttpError): Reply {
  return { status: error.status, body: JSON.stringify(error.body), headers: error.headers };
}

const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw envelopeError(413, 'Request body is larger than 1 MiB.', 'payload_too_large');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A JSON object body, or a 400 that says what was wrong with it. */
export function parseJsonObject(text: string, required: boolean): Record<string, unknown> {
  if (text.trim() === '') {
    if (required) throw envelopeError(400, 'A JSON request body is required.', 'invalid_body');
    return {};
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw envelopeError(400, 'The request body is not valid JSON.', 'invalid_body');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw envelopeError(400, 'The request body must be a JSON object.', 'invalid_body');
  }
  return value as Record<string, unknown>;
}
