import {
  Alert,
  Button,
  Card,
  Group,
  NumberInput,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import type { AccountList, AccountView } from '@smsgw/contracts';
import { Failure, Pager, useCursorPages } from '../parts';
import { api, query } from '../api';
import { useLoggedIn } from '../session';

function CreateAccount() {
  const client = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [balance, setBalance] = useState<string | number>(0);
  const create = useMutation({
    mutationFn: () =>
      api<AccountView>('POST', '/admin/v1/accounts', {
        username,
        password,
        balance: String(balance),
      }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['accounts'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Card withBorder component="section" aria-labelledby="create-account">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="create-account">
            Create an account
          </Title>
          <Group align="end">
            <TextInput
              label="Username"
              required
              value={username}
              onChange={(e) => setUsername(e.currentTarget.value)}
            />
            <PasswordInput
              label="Password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
            />
            <NumberInput
              label="Balance"
              min={0}
              decimalScale={6}
              value={balance}
              onChange={setBalance}
            />
            <Button type="submit" loading={create.isPending}>
              Create
            </Button>
          </Group>
          <Failure error={create.error} title="Not created" />
          {create.data && (
            <Alert color="green" role="status">
              Account {create.data.username} created.
            </Alert>
          )}
        </Stack>
      </form>
    </Card>
  );
}

function TopUp({ account }: { account: AccountView }) {
  const client = useQueryClient();
  const [amount, setAmount] = useState<string | number>('');
  const credit = useMutation({
    mutationFn: () =>
      api<AccountView>(
        'POST',
        `/admin/v1/accounts/${encodeURIComponent(account.username)}/credit`,
        {
          amount: String(amount),
        },
      ),
    onSuccess: () => {
      setAmount('');
      void client.invalidateQueries({ queryKey: ['accounts'] });
    },
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        credit.mutate();
      }}
    >
      <Group gap="xs" wrap="nowrap">
        <NumberInput
          aria-label={`Credit for ${account.username}`}
          placeholder="amount"
          size="xs"
          w={110}
          decimalScale={6}
          value={amount}
          onChange={setAmount}
        />
        <Button type="submit" size="xs" variant="default" loading={credit.isPending}>
          Top up
        </Button>
        {credit.error && (
          <Text size="xs" c="red" role="alert">
            {credit.error.message}
          </Text>
        )}
      </Group>
    </form>
  );
}

/** Accounts: the list by name (searched, paged by the API's cursor), creating one, credit. */
export function AccountsPage() {
  const session = useLoggedIn();
  const [search, setSearch] = useState('');
  const [q, setQ] = useState<string | undefined>();
  const pages = useCursorPages();
  const next = pages.cursor;
  const list = useQuery({
    queryKey: ['accounts', q, next],
    queryFn: () => api<AccountList>('GET', `/admin/v1/accounts${query({ q, next })}`),
  });
  const canWrite = session.scopes.includes('accounts:write');
  const canCredit = session.scopes.includes('credit');
  return (
    <Stack>
      <Title order={1} size="h2">
        Accounts
      </Title>
      {canWrite && <CreateAccount />}
      <form
        aria-label="Search accounts"
        onSubmit={(e) => {
          e.preventDefault();
          setQ(search === '' ? undefined : search);
          pages.reset();
        }}
      >
        <Group align="end">
          <TextInput
            label="Name contains"
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
          />
          <Button type="submit" variant="default">
            Search
          </Button>
        </Group>
      </form>
      <Failure error={list.error} />
      <Table striped aria-label="Accounts">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Username</Table.Th>
            <Table.Th>Balance</Table.Th>
            <Table.Th>Quota</Table.Th>
            <Table.Th>State</Table.Th>
            {canCredit && <Table.Th>Credit</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.data?.data.accounts.map((a) => (
            <Table.Tr key={a.id}>
              <Table.Td>
                <Link href={`/accounts/${encodeURIComponent(a.username)}`}>{a.username}</Link>
              </Table.Td>
              <Table.Td>{a.balance}</Table.Td>
              <Table.Td>{a.sms_count}</Table.Td>
              <Table.Td>{a.disabled_at === null ? 'enabled' : 'disabled'}</Table.Td>
              {canCredit && (
                <Table.Td>
                  <TopUp account={a} />
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Pager pages={pages} nextCursor={list.data?.data.next} labels={['Previous', 'Next']} />
    </Stack>
  );
}
