import { Badge, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ConnectorView } from '@smsgw/contracts';
import { Confirm, ConfirmDelete, EditDelete, Failure } from '../parts';
import { api } from '../api';
import { ConnectorForm } from '../ConnectorForm';

const STATE_COLORS = { up: 'green', down: 'red', stopped: 'gray' } as const;

/** The confirmation before a connector is stopped or started: it changes live traffic. */
function ConfirmChange({
  change,
  onClose,
}: {
  change: { name: string; action: 'stop' | 'start' } | undefined;
  onClose: () => void;
}) {
  const client = useQueryClient();
  const apply = useMutation({
    mutationFn: (c: { name: string; action: 'stop' | 'start' }) =>
      api<{ data: ConnectorView }>(
        'POST',
        `/admin/v1/connectors/${encodeURIComponent(c.name)}/${c.action}`,
      ),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['connectors'] });
      onClose();
    },
  });
  return (
    <Confirm
      opened={change !== undefined}
      title={
        change ? `${change.action === 'stop' ? 'Stop' : 'Start'} connector ${change.name}?` : ''
      }
      what={
        change?.action === 'stop'
          ? 'Its sessions unbind and its messages wait (or go to another connector of their route) until it is started again.'
          : 'Its dispatchers bind to the SMSC again and send what waits for it.'
      }
      confirm={change?.action === 'stop' ? 'Stop it' : 'Start it'}
      danger={change?.action === 'stop'}
      busy={apply.isPending}
      error={apply.error}
      onConfirm={() => change && apply.mutate(change)}
      onClose={onClose}
    />
  );
}

/** The connectors with their state, sessions, window and rate, refreshed live; stop and start. */
export function ConnectorsPage() {
  const [change, setChange] = useState<{ name: string; action: 'stop' | 'start' }>();
  const [editing, setEditing] = useState<ConnectorView | 'new' | undefined>();
  const [deleting, setDeleting] = useState<string | undefined>();
  const list = useQuery({
    queryKey: ['connectors'],
    queryFn: () => api<{ data: ConnectorView[] }>('GET', '/admin/v1/connectors'),
    refetchInterval: 3000,
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Connectors
        </Title>
        <Button onClick={() => setEditing('new')}>Add a connector</Button>
      </Group>
      <Failure error={list.error} />
      <Table striped aria-label="Connectors">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>State</Table.Th>
            <Table.Th>Sessions / binds</Table.Th>
            <Table.Th>Window in use</Table.Th>
            <Table.Th>Waiting</Table.Th>
            <Table.Th>Rate /s</Table.Th>
            <Table.Th>Last error</Table.Th>
            <Table.Th>Action</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.data?.data.map((c) => (
            <Table.Tr key={c.name}>
              <Table.Td>{c.name}</Table.Td>
              <Table.Td>
                <Badge color={STATE_COLORS[c.state]} variant="light">
                  {c.state}
                </Badge>
              </Table.Td>
              <Table.Td>
                {c.sessions} / {c.binds}
              </Table.Td>
              <Table.Td>{c.windowInUse}</Table.Td>
              <Table.Td>{c.waiting}</Table.Td>
              <Table.Td>{c.rate}</Table.Td>
              <Table.Td>{c.lastError ?? '—'}</Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Button
                    size="xs"
                    variant="default"
                    onClick={() =>
                      setChange({
                        name: c.name,
                        action: c.desiredState === 'stopped' ? 'start' : 'stop',
                      })
                    }
                  >
                    {c.desiredState === 'stopped' ? 'Start' : 'Stop'} {c.name}
                  </Button>
                  <EditDelete
                    name={c.name}
                    onEdit={() => setEditing(c)}
                    onDelete={() => setDeleting(c.name)}
                  />
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {list.data?.data.length === 0 && <Text>No connector is configured.</Text>}
      <ConfirmChange change={change} onClose={() => setChange(undefined)} />
      <ConnectorForm editing={editing} onClose={() => setEditing(undefined)} />
      <ConfirmDelete
        thing="connector"
        name={deleting}
        what="Its dispatchers unbind. A connector that routes name, or that messages still wait for, is not deleted: the gateway says which."
        path={(name) => `/admin/v1/connectors/${encodeURIComponent(name)}`}
        refresh={['connectors']}
        onClose={() => setDeleting(undefined)}
      />
    </Stack>
  );
}
