import {
  Alert,
  Button,
  Center,
  Paper,
  PasswordInput,
  Stack,
  Tabs,
  TextInput,
  Title,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { ConsoleLogin } from '@smsgw/contracts';
import { Failure } from '../parts';
import { useSession } from '../session';

/** The login: a customer with the account's username and password, an operator with an admin token. */
export function LoginPage() {
  const { login, failure } = useSession();
  const [kind, setKind] = useState<'customer' | 'operator'>('customer');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const attempt: ConsoleLogin =
      kind === 'customer' ? { kind, username, password } : { kind, token };
    try {
      await login(attempt);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="100vh">
      <Paper withBorder shadow="sm" p="xl" w={420} component="main">
        <form onSubmit={(e) => void submit(e)}>
          <Stack>
            <Title order={1} size="h2">
              sms-gateway console
            </Title>
            <Tabs
              value={kind}
              onChange={(v) => setKind(v === 'operator' ? 'operator' : 'customer')}
            >
              <Tabs.List grow>
                <Tabs.Tab value="customer">Customer</Tabs.Tab>
                <Tabs.Tab value="operator">Operator</Tabs.Tab>
              </Tabs.List>
            </Tabs>
            {kind === 'customer' ? (
              <>
                <TextInput
                  label="Username"
                  autoComplete="username"
                  required
                  value={username}
                  onChange={(e) => setUsername(e.currentTarget.value)}
                />
                <PasswordInput
                  label="Password"
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(e) => setPassword(e.currentTarget.value)}
                />
              </>
            ) : (
              <PasswordInput
                label="Admin token"
                autoComplete="off"
                required
                value={token}
                onChange={(e) => setToken(e.currentTarget.value)}
              />
            )}
            <Failure error={failure} title="The gateway did not answer" />
            {error !== undefined && (
              <Alert color="red" title="Not logged in" role="alert">
                {error}
              </Alert>
            )}
            <Button type="submit" loading={busy}>
              Log in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
