import {
  Alert,
  Button,
  Card,
  Code,
  Group,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ApplicationList } from '@smsgw/contracts';
import { api } from './api';
import { Confirm, Failure } from './parts';

interface Created {
  client_id: string;
  client_secret: string;
  name: string | null;
}

/**
 * An account's applications (client id and secret for POST /auth/v1/login/application): listed,
 * made (the secret shown once, as the API gives it once) and revoked. `base` is the customer's
 * /auth/v1/applications or an operator's /admin/v1/accounts/{username}/applications.
 */
export function Applications({ base, canChange }: { base: string; canChange: boolean }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [revoking, setRevoking] = useState<string | undefined>();
  const list = useQuery({
    queryKey: ['applications', base],
    queryFn: () => api<ApplicationList>('GET', base),
  });
  const refresh = () => void client.invalidateQueries({ queryKey: ['applications', base] });
  const make = useMutation({
    mutationFn: () => api<Created>('POST', base, name === '' ? {} : { name }),
    onSuccess: () => {
      setName('');
      refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (clientId: string) =>
      api<unknown>('DELETE', `${base}/${encodeURIComponent(clientId)}`),
    onSuccess: () => {
      setRevoking(undefined);
      refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    make.mutate();
  };
  const apps = list.data?.data ?? [];
  return (
    <Card withBorder component="section" aria-labelledby="applications">
      <Stack>
        <Title order={2} size="h4" id="applications">
          Applications
        </Title>
        <Text size="sm">
          An application exchanges its client id and secret for a bearer token at
          /auth/v1/login/application.
        </Text>
        <Failure error={list.error} />
        {list.data && apps.length === 0 && <Text>No applications.</Text>}
        {apps.length > 0 && (
          <Table aria-label="Applications">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Client id</Table.Th>
                <Table.Th>Name</Table.Th>
                <Table.Th>Made</Table.Th>
                {canChange && <Table.Th>Action</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {apps.map((a) => (
                <Table.Tr key={a.client_id}>
                  <Table.Td>
                    <Code>{a.client_id}</Code>
                  </Table.Td>
                  <Table.Td>{a.name ?? ''}</Table.Td>
                  <Table.Td>{new Date(a.created_at).toLocaleString()}</Table.Td>
                  {canChange && (
                    <Table.Td>
                      <Button
                        size="xs"
                        variant="default"
                        aria-label={`Revoke application ${a.client_id}`}
                        onClick={() => setRevoking(a.client_id)}
                      >
                        Revoke
                      </Button>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {canChange && (
          <form onSubmit={submit}>
            <Group align="end">
              <TextInput
                label="New application's name"
                description="Optional, for you to tell them apart"
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
              />
              <Button type="submit" loading={make.isPending}>
                Make an application
              </Button>
            </Group>
          </form>
        )}
        <Failure error={make.error} title="Not made" />
        {make.data && (
          <Alert color="green" role="status" title="Application made">
            <Text>
              Client id <Code>{make.data.client_id}</Code>
            </Text>
            <Text>
              Client secret <Code>{make.data.client_secret}</Code>
            </Text>
            <Text size="sm">The secret is shown this once: keep it now.</Text>
          </Alert>
        )}
      </Stack>
      <Confirm
        opened={revoking !== undefined}
        title={`Revoke application ${revoking ?? ''}?`}
        what="Its secret stops working, and so do the tokens it was given."
        confirm="Revoke it"
        danger
        busy={revoke.isPending}
        error={revoke.error}
        onConfirm={() => revoking !== undefined && revoke.mutate(revoking)}
        onClose={() => setRevoking(undefined)}
      />
    </Card>
  );
}
