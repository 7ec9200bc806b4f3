import {
  Button,
  Card,
  Group,
  NumberInput,
  PasswordInput,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import type { SenderRulesView, SmppAccessView } from '@smsgw/contracts';
import { api, ApiError } from '../api';
import { Confirm, Failure } from '../parts';

const path = (username: string) => `/admin/v1/accounts/${encodeURIComponent(username)}`;

/** Lines of a text area as a list: trimmed, empty ones left out. */
const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** The senders the account may use, and what happens to another: shown, replaced, removed. */
export function SenderRules({ username, canChange }: { username: string; canChange: boolean }) {
  const client = useQueryClient();
  const key = ['senders', username];
  const rules = useQuery({
    queryKey: key,
    queryFn: () => api<SenderRulesView>('GET', `${path(username)}/senders`),
  });
  const [senders, setSenders] = useState('');
  const [policy, setPolicy] = useState<string>('refuse');
  useEffect(() => {
    if (!rules.data) return;
    setSenders(rules.data.senders.join('\n'));
    setPolicy(rules.data.policy ?? 'refuse');
  }, [rules.data]);
  const save = useMutation({
    mutationFn: () =>
      api<SenderRulesView>('PUT', `${path(username)}/senders`, { senders: lines(senders), policy }),
    onSuccess: (view) => client.setQueryData(key, view),
  });
  const remove = useMutation({
    mutationFn: () => api<SenderRulesView>('DELETE', `${path(username)}/senders`),
    onSuccess: (view) => client.setQueryData(key, view),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const r = rules.data;
  return (
    <Card withBorder component="section" aria-labelledby="senders">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="senders">
            Senders
          </Title>
          <Failure error={rules.error} />
          {r && (
            <Text size="sm">
              {r.configured
                ? `${r.senders.length} senders listed; another is ${r.policy === 'replace' ? `replaced by ${r.default_from ?? 'the default sender'}` : 'refused'}.`
                : 'No list: the gateway-wide setting (UNLISTED_SENDERS) decides.'}
            </Text>
          )}
          <Textarea
            label="Senders it may use"
            description="One a line: a number, or up to 11 letters and digits; * and ? are wildcards"
            autosize
            minRows={3}
            value={senders}
            readOnly={!canChange}
            onChange={(e) => setSenders(e.currentTarget.value)}
          />
          <Select
            label="Another sender is"
            data={[
              { value: 'refuse', label: 'refused (SENDER_NOT_ALLOWED)' },
              { value: 'replace', label: "replaced by the account's default sender" },
            ]}
            value={policy}
            readOnly={!canChange}
            allowDeselect={false}
            onChange={(v) => v !== null && setPolicy(v)}
          />
          <Failure error={save.error ?? remove.error} title="Not saved" />
          {canChange && (
            <Group>
              <Button type="submit" loading={save.isPending}>
                Save the senders
              </Button>
              {r?.configured === true && (
                <Button
                  variant="default"
                  loading={remove.isPending}
                  onClick={() => remove.mutate()}
                >
                  Remove the list
                </Button>
              )}
            </Group>
          )}
        </Stack>
      </form>
    </Card>
  );
}

/** SMPP access: the account's bind password (8 characters) and its limits; given, changed, taken away. */
export function SmppAccess({ username, canChange }: { username: string; canChange: boolean }) {
  const client = useQueryClient();
  const key = ['smpp', username];
  const access = useQuery({
    queryKey: key,
    queryFn: async () => {
      try {
        return await api<SmppAccessView>('GET', `${path(username)}/smpp`);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
  const [password, setPassword] = useState('');
  const [maxSessions, setMaxSessions] = useState<number | string>(4);
  const [throughput, setThroughput] = useState<number | string>('');
  const [addresses, setAddresses] = useState('');
  const [removing, setRemoving] = useState(false);
  useEffect(() => {
    if (!access.data) return;
    setMaxSessions(access.data.max_sessions);
    setThroughput(access.data.throughput ?? '');
    setAddresses(access.data.allowed_addresses.join('\n'));
  }, [access.data]);
  const save = useMutation({
    mutationFn: () =>
      api<SmppAccessView>('PUT', `${path(username)}/smpp`, {
        ...(password !== '' && { password }),
        max_sessions: Number(maxSessions),
        throughput: throughput === '' ? null : Number(throughput),
        allowed_addresses: lines(addresses),
      }),
    onSuccess: (view) => {
      setPassword('');
      client.setQueryData(key, view);
    },
  });
  const remove = useMutation({
    mutationFn: () => api<unknown>('DELETE', `${path(username)}/smpp`),
    onSuccess: () => {
      setRemoving(false);
      client.setQueryData(key, null);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const a = access.data;
  return (
    <Card withBorder component="section" aria-labelledby="smpp-access">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="smpp-access">
            SMPP access
          </Title>
          <Failure error={access.error} />
          {a === null && <Text size="sm">No SMPP access: the account cannot bind.</Text>}
          {a && (
            <Text size="sm">
              Binds as system_id <strong>{a.system_id}</strong>, at most {a.max_sessions} sessions,{' '}
              {a.throughput === null ? 'no rate limit' : `${a.throughput} messages a second`}, from{' '}
              {a.allowed_addresses.length === 0 ? 'any address' : a.allowed_addresses.join(', ')}.
            </Text>
          )}
          {canChange && (
            <>
              <PasswordInput
                label={a ? 'New SMPP password' : 'SMPP password'}
                description={
                  a
                    ? 'Leave empty to keep the password; 8 characters'
                    : '8 characters (SMPP 3.4 allows no more)'
                }
                required={a === null}
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
              />
              <Group grow>
                <NumberInput
                  label="Sessions at most"
                  min={1}
                  max={1000}
                  value={maxSessions}
                  onChange={setMaxSessions}
                />
                <NumberInput
                  label="Messages a second at most"
                  description="Empty: no limit"
                  min={1}
                  max={100000}
                  value={throughput}
                  onChange={setThroughput}
                />
              </Group>
              <TextInput
                label="Addresses it may bind from"
                description="IP addresses or CIDR ranges, separated by spaces; empty: any"
                value={addresses.split('\n').join(' ')}
                onChange={(e) => setAddresses(e.currentTarget.value.split(/\s+/).join('\n'))}
              />
              <Failure error={save.error ?? remove.error} title="Not saved" />
              <Group>
                <Button type="submit" loading={save.isPending}>
                  {a ? 'Save the SMPP access' : 'Give SMPP access'}
                </Button>
                {a && (
                  <Button variant="default" onClick={() => setRemoving(true)}>
                    Take SMPP access away
                  </Button>
                )}
              </Group>
            </>
          )}
        </Stack>
      </form>
      <Confirm
        opened={removing}
        title={`Take ${username}'s SMPP access away?`}
        what="Its sessions are closed and it can no longer bind, until it is given access again."
        confirm="Take it away"
        danger
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate()}
        onClose={() => setRemoving(false)}
      />
    </Card>
  );
}
