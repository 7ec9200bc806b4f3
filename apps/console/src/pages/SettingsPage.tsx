import { Button, Card, Code, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { CallbackSecretView, OptOutPage } from '@smsgw/contracts';
import { api } from '../api';
import { Applications } from '../Applications';
import { Failure } from '../parts';

/** The secret that signs the account's callbacks (X-Smsgw-Signature): read it, rotate it. */
function CallbackSecret() {
  const client = useQueryClient();
  const secret = useQuery({
    queryKey: ['callback-secret'],
    queryFn: () => api<{ data: CallbackSecretView }>('GET', '/secure/callback-secret'),
  });
  const rotate = useMutation({
    mutationFn: () => api<{ data: CallbackSecretView }>('POST', '/secure/callback-secret', {}),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['callback-secret'] }),
  });
  const s = secret.data?.data;
  return (
    <Card withBorder component="section" aria-labelledby="callback-secret">
      <Stack>
        <Title order={2} size="h4" id="callback-secret">
          Callback secret
        </Title>
        <Text size="sm">Your callbacks carry X-Smsgw-Signature, made with this secret.</Text>
        {s && (
          <Text>
            Current: <Code>{s.secret}</Code>
            {s.previous_secret !== null && (
              <> (the previous one is still accepted until {s.previous_secret_expires_at})</>
            )}
          </Text>
        )}
        <Failure error={secret.error ?? rotate.error} />
        <Group>
          <Button variant="default" loading={rotate.isPending} onClick={() => rotate.mutate()}>
            Rotate the secret
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

/** The numbers the account may not send to: add one, take one off. */
function OptOuts() {
  const client = useQueryClient();
  const [number, setNumber] = useState('');
  const list = useQuery({
    queryKey: ['optouts'],
    queryFn: () => api<OptOutPage>('GET', '/secure/optouts'),
  });
  const add = useMutation({
    mutationFn: () => api<unknown>('POST', '/secure/optouts', { number }),
    onSuccess: () => {
      setNumber('');
      void client.invalidateQueries({ queryKey: ['optouts'] });
    },
  });
  const remove = useMutation({
    mutationFn: (n: string) => api<unknown>('DELETE', `/secure/optouts/${encodeURIComponent(n)}`),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['optouts'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <Card withBorder component="section" aria-labelledby="optouts">
      <Stack>
        <Title order={2} size="h4" id="optouts">
          Opted-out numbers
        </Title>
        <form onSubmit={submit}>
          <Group align="end">
            <TextInput
              label="Number to opt out"
              required
              value={number}
              onChange={(e) => setNumber(e.currentTarget.value)}
            />
            <Button type="submit" loading={add.isPending}>
              Opt it out
            </Button>
          </Group>
        </form>
        <Failure error={list.error ?? add.error ?? remove.error} />
        <Table aria-label="Opted-out numbers">
          <Table.Tbody>
            {list.data?.data.optouts.map((o) => (
              <Table.Tr key={o.number}>
                <Table.Td>{o.number}</Table.Td>
                <Table.Td>{o.source}</Table.Td>
                <Table.Td>{o.createdAt}</Table.Td>
                <Table.Td>
                  <Button size="xs" variant="default" onClick={() => remove.mutate(o.number)}>
                    Take {o.number} off
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {list.data?.data.optouts.length === 0 && <Text>No number is opted out.</Text>}
      </Stack>
    </Card>
  );
}

/** A customer's settings: its applications, the callback secret and the opt-out list. */
export function SettingsPage() {
  return (
    <Stack>
      <Title order={1} size="h2">
        Settings
      </Title>
      <Applications base="/auth/v1/applications" canChange />
      <CallbackSecret />
      <OptOuts />
    </Stack>
  );
}
