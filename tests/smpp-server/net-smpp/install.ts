import { spawnSync } from 'node:child_process';

const PACKAGE = 'libnet-smpp-perl';
const HOW = `install Perl's Net::SMPP with \`apt-get install -y ${PACKAGE}\` (Debian, as root) or \`cpan Net::SMPP\``;

const present = (): boolean =>
  spawnSync('perl', ['-MNet::SMPP', '-MJSON::PP', '-e1'], { stdio: 'ignore' }).status === 0;

function aptGet(args: string[]): { status: number | null; stderr: string } {
  const asRoot = process.getuid?.() === 0;
  // Without root, only a sudo that needs no password can install; it fails fast otherwise.
  const [command, argv] = asRoot ? ['apt-get', args] : ['sudo', ['-n', 'apt-get', ...args]];
  const run = spawnSync(command, argv, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 300_000,
  });
  return { status: run.status, stderr: String(run.stderr ?? run.error ?? '') };
}

let checked = false;

/**
 * The suite's customer client is Net::SMPP from Debian's libnet-smpp-perl, as the bench's Kannel is
 * Debian's kannel: installed with apt-get when missing (the package lists refreshed once if the
 * package is unknown), and when that cannot be done the suite fails saying how to install it.
 * Two test files may install at once: apt-get waits for the other's dpkg lock.
 */
export function ensureNetSmpp(): void {
  if (checked || present()) {
    checked = true;
    return;
  }
  const install = ['-o', 'DPkg::Lock::Timeout=240', 'install', '-y', PACKAGE];
  let result = aptGet(install);
  if (result.status !== 0 && !present()) {
    aptGet(['-o', 'DPkg::Lock::Timeout=240', 'update']);
    result = aptGet(install);
  }
  if (!present())
    throw new Error(
      `Net::SMPP is missing and could not be installed (apt-get exited ${result.status}): ${HOW}.\n${result.stderr.slice(-1500)}`,
    );
  checked = true;
}
