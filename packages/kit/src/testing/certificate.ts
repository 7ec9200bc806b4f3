import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCertificate {
  key: string;
  cert: string;
  /** The certificate's PEM file, for a `tls_ca` parameter. */
  certFile: string;
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl into `dir`. */
export function selfSignedCertificate(dir: string, name = 'server'): TestCertificate {
  const keyFile = join(dir, `${name}-key.pem`);
  const certFile = join(dir, `${name}-cert.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}
