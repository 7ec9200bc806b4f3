import {
  Alert,
  Button,
  Card,
  Checkbox,
  Code,
  Group,
  SimpleGrid,
  Stack,
  Table,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { AdminTokenCreated, AdminTokenList } from '@smsgw/contracts';
import { ADMIN_SCOPES } from '@smsgw/contracts/plain';
import { Confirm, Failure } from '../parts';
import { api } from '../api';

function CreateToken() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: () => api<AdminTokenCreated>('POST', '/admin/v1/tokens', { name, scopes }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['tokens'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Card withBorder component="section" aria-labelledby="create-token">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="create-token">
            Make a token
          </Title>
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
          />
          <Checkbox.Group label="Scopes" value={scopes} onChange={setScopes}>
            <SimpleGrid cols={{ base: 2, md: 4 }} mt="xs">
              {ADMIN_SCOPES.map((s) => (
                <Checkbox key={s} value={s} label={s} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Group>
            <Button type="submit" loading={create.isPending}>
              Make it
            </Button>
          </Group>
          <Failure error={create.error} title="Not made" />
          {create.data && (
            <Alert color="green" role="status" title={`Token ${create.data.data.name}`}>
              Copy it now, it is not shown again: <Code>{create.data.data.token}</Code>
            </Alert>
          )}
        </Stack>
      </form>
    </Card>
  );
}

function RevokeToken({ name }: { name: string }) {
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const revoke = useMutation({
    mutationFn: () => api<unknown>('DELETE', `/admin/v1/tokens/${encodeURIComponent(name)}`),
    onSuccess: () => {
      setAsking(false);
      void client.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  return (
    <>
      <Button size="xs" variant="default" onClick={() => setAsking(true)}>
        Revoke {name}
      </Button>
      <Confirm
        opened={asking}
        title={`Revoke token ${name}?`}
        what="It stops working at once, with the tokens it made and their console sessions."
        confirm="Revoke it"
        danger
        busy={revoke.isPending}
        error={revoke.error}
        onConfirm={() => revoke.mutate()}
        onClose={() => setAsking(false)}
      />
    </>
  );
}

/** The admin tokens: who made each, its scopes, revoked or not; make one; revoke one. */
export function TokensPage() {
  const list = useQuery({
    queryKey: ['tokens'],
    queryFn: () => api<AdminTokenList>('GET', '/admin/v1/tokens'),
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Admin tokens
      </Title>
      <CreateToken />
      <Failure error={list.error} />
      <Table striped aria-label="Admin tokens">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Scopes</Table.Th>
            <Table.Th>Made by</Table.Th>
            <Table.Th>Made</Table.Th>
            <Table.Th>Revoked</Table.Th>
            <Table.Th>Action</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.data?.data.map((t) => (
            <Table.Tr key={t.name}>
              <Table.Td>{t.name}</Table.Td>
              <Table.Td>{t.scopes.join(', ')}</Table.Td>
              <Table.Td>{t.created_by}</Table.Td>
              <Table.Td>{t.created_at}</Table.Td>
              <Table.Td>{t.revoked_at ?? '—'}</Table.Td>
              <Table.Td>{t.revoked_at === null && <RevokeToken name={t.name} />}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
